"""Tests of the echomq command-line tool (a package, so its conftest and
helpers never shadow those of the other test folders)."""
