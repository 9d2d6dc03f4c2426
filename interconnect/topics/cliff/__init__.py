"""The bandwidth cliff: scale-up against scale-out bandwidth, like for like, per GPU and per server."""
