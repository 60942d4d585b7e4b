-- wrk: print the latency percentiles (microseconds) and counts as one parseable line.
done = function(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d errors=%d p50=%d p95=%d p99=%d duration=%d\n",
    summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), summary.duration))
end
