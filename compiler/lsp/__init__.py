"""`pillbox lsp`: a language server for card files, over stdio, one module per feature."""
