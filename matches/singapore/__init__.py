"""Singapore tables: sessions, seats and the winner-stays rotation, hands through the shared
result cycle, their postings to the ledger, the session sheet, bulk import and statistics."""
