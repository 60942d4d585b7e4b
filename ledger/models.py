"""The ledger of debts between people (Singapore payouts, settling up) lands with its issue."""
