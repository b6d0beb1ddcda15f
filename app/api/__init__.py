"""HTTP and WebSocket routes (thin: validation and wiring only)."""
