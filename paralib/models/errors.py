"""Errors of the model folder, importable without torch (the CLI catches them)."""


class ModelLoadError(ValueError):
    """A model folder is missing, incomplete or does not match its weights."""


class ModelFolderError(ValueError):
    """An output folder that paralib did not make: it is never replaced."""
