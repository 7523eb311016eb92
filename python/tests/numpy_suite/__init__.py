"""NumPy's own format tests routed through npyguard (a package: its conftest is not the suite's)."""
