"""Built-in confidence policies, one TOML file each (see ``docs/policies.md``)."""
