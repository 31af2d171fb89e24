"""How the harness binds host-owned values to each call (DESIGN.md, Host binding)."""
