"""The contract docs site of `dc-bridge site` (docs/history.md, "The site"): static pages built from a
history store that open offline (no CDN, no request: styles and charts inline)."""

from dc_bridge.history.site.build import DEFAULT_RUNS, OWNED, SITE_MARK, build_site, site_pages

__all__ = ["DEFAULT_RUNS", "OWNED", "SITE_MARK", "build_site", "site_pages"]
