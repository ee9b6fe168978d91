"""dc-bridge inside the tools a team already runs: a GX 1.x project (`gx_project`), plain Soda
scans (`soda_config`), and folding their results into the contract verdict (`fold`)."""
