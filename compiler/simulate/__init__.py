"""`pillbox simulate`: sweeps of whole games in a process pool, their figures and page."""
