"""The engines: one folder each (translation and run side by side), wired in registry.py."""
