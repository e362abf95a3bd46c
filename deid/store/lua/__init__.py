"""Lua scripts of the Redis store (loaded with importlib.resources; shipped as package data)."""
