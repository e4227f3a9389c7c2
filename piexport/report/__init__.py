"""Reports: figures and text formats for terminals, CI jobs and scripts."""
