"""`pillbox test --balance`: the bands a pack states in pack.yaml, judged on fixed seeds."""
