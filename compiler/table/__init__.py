"""`pillbox table`: a whole game of a pack played in the browser, bots in the empty seats."""
