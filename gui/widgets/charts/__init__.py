"""pyqtgraph charts of the surveillance station: each built once and updated in place (`update`)."""
