"""Models: a JSON file, a dict or a builder, with --set assignments on top.

A Model is what the command line reads: a model file (or the same JSON as a dict) and
the assignments that `arbolito run --set KEY.PATH=VALUE` would apply to it. The engine
reads and validates it at each run, so an error names the file and key as the command
line does.
"""
import copy
import json
import os

from . import _arbolito

# What a model given as a dict is called in error messages.
DICT_NAME = "<dict>"


class Model:
    """A model to run: see Model.from_file, Model.from_dict and Model.from_builder."""

    def __init__(self, path, text=None, sets=None):
        # path: the model file, or for a dict the name its errors give, in the folder that
        # relative file names (SWC) in it are relative to. text: the JSON of a dict model.
        self._path = os.fspath(path)
        self._text = text
        self._sets = list(sets or [])

    @classmethod
    def from_file(cls, path):
        """The model file at `path` (JSON; README's schema), as `arbolito run PATH` reads it."""
        return cls(path)

    @classmethod
    def from_dict(cls, description, base_dir="."):
        """A model given as the dict its JSON file would hold; file names in it (SWC) are
        relative to base_dir."""
        return cls(os.path.join(os.fspath(base_dir), DICT_NAME), json.dumps(description))

    @classmethod
    def from_builder(cls, builder, name=None, **params):
        """A network whose builder draws its own cells ("busyring"), with the builder's
        parameters as keywords (README, "Model files"); busyring's keys have hyphens,
        written as underscores here (num_cells: num-cells). A builder that connects cells
        listed in the model (ring) needs them: Model.from_dict."""
        network = {"builder": builder}
        for key, value in params.items():
            network[key.replace("_", "-") if builder == "busyring" else key] = value
        return cls.from_dict({"name": name or builder, "network": network})

    def set(self, key, value):
        """Applies `--set KEY=VALUE` (a dotted key path, [i] for array elements) and
        returns the model, so that calls chain: model.set("network.num-cells", 64)."""
        if not isinstance(key, str) or not key:
            raise _arbolito.InputError(f"--set: {key!r} is not a KEY.PATH")
        self._sets.append(f"{key}={json.dumps(value)}")
        return self

    def with_set(self, key, value):
        """A copy of the model with one more assignment (the model itself unchanged)."""
        return self.copy().set(key, value)

    def copy(self):
        return Model(self._path, self._text, copy.copy(self._sets))

    @property
    def path(self):
        return self._path

    @property
    def sets(self):
        """The assignments, as the command line's --set arguments."""
        return list(self._sets)

    def to_dict(self):
        """The model's JSON document before the assignments."""
        if self._text is not None:
            return json.loads(self._text)
        with open(self._path, encoding="utf-8") as f:
            return json.load(f)

    def describe(self):
        """Name, cell, connection and generator counts and the run settings (dt, tfinal,
        sample_dt ms; celsius; event rules), as read with the assignments."""
        return _arbolito.describe_model(self._path, self._text, self._sets)

    def cli_arguments(self):
        """The command line that reads this model the same way (for a file model)."""
        if self._text is not None:
            raise ValueError("a dict model has no file: write Model.to_dict() to one first")
        args = [self._path]
        for s in self._sets:
            args += ["--set", s]
        return args

    def __repr__(self):
        what = "dict" if self._text is not None else repr(self._path)
        sets = "".join(f", set {s}" for s in self._sets)
        return f"Model({what}{sets})"


def as_model(model):
    """A Model from a Model, a dict or a path."""
    if isinstance(model, Model):
        return model
    if isinstance(model, dict):
        return Model.from_dict(model)
    if isinstance(model, (str, os.PathLike)):
        return Model.from_file(model)
    raise TypeError(f"a model is a Model, a dict or a path, not {type(model).__name__}")
