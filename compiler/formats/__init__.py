"""What pillbox writes for other tools to read: SARIF for code scanning, JUnit XML for CI test
reports, a CSV sheet of a pack's cards for spreadsheets."""
