"""Wheel sensor layer: protocol parsers, serial link, virtual wheel and capture replay. No Qt."""
