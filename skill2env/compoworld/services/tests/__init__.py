"""Each service's own tests: plain `test_*` functions, runnable by pytest or by `runner` (stdlib only)."""
