"""The contract docs site of `dc-bridge site` (docs/history.md, "The site"): static pages built from a
history store that open offline (no CDN, no request: styles inline, charts drawn by the Vega libraries the
site writes beside its pages)."""

from dc_bridge.history.site.build import DEFAULT_RUNS, OWNED, Built, build_site, site_files
from dc_bridge.history.site.source import StoreRefused, readable_store

__all__ = ["DEFAULT_RUNS", "OWNED", "Built", "StoreRefused", "build_site", "readable_store", "site_files"]
