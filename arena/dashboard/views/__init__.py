"""The dashboard's server-rendered pages, one module per family of pages. Reads go through
selectors, writes through services."""
