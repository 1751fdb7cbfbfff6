"""Wheel line protocols by name: `get_protocol("ss2")`, `get_protocol("plain")`, and the framer."""

from hardware.protocol.base import LineFramer, Protocol, get_protocol, protocol_names, register_protocol

__all__ = ["LineFramer", "Protocol", "get_protocol", "protocol_names", "register_protocol"]
