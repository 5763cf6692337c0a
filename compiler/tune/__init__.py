"""`pillbox tune`: the smallest edit of a card's numbers that meets a balance target."""
