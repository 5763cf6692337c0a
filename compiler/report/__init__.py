"""`pillbox report`: a self-contained HTML page of a pack's cards, their exact odds and flags."""
