"""Reading: a session file becomes the model (loader, migrations, tree, pi's context)."""
