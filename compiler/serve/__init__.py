"""`pillbox serve`: a live preview of a pack on 127.0.0.1, following every saved change."""
