"""What is trained, shared by the topics that model a training step: the model shapes (presets)."""
