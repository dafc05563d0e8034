"""The configuration schema: YAML in, typed overrides, clear errors naming key and file."""

from __future__ import annotations

import pytest

from paralib.config import ConfigError, load_config
from paralib.overrides import OverrideError, parse


def write(tmp_path, text: str):
    p = tmp_path / "cfg.yaml"
    p.write_text(text)
    return p


def test_defaults_validate():
    cfg = load_config()
    assert cfg.backtranslate.beam_size == 4
    assert cfg.ray.address is None


def test_yaml_and_typed_overrides(tmp_path):
    p = write(tmp_path, "backtranslate:\n  beam_size: 8\n  num_hypotheses: 2\n")
    cfg = load_config(p, ["backtranslate.num_hypotheses=5", "ray.address=auto"])
    assert cfg.backtranslate.beam_size == 8
    assert cfg.backtranslate.num_hypotheses == 5
    assert cfg.ray.address == "auto"


def test_unknown_key_names_key_and_file(tmp_path):
    p = write(tmp_path, "backtranslate:\n  beem_size: 8\n")
    with pytest.raises(ConfigError) as exc:
        load_config(p)
    assert "backtranslate.beem_size: unknown key" in str(exc.value)
    assert str(p) in str(exc.value)


def test_wrong_type_names_key_and_value(tmp_path):
    with pytest.raises(ConfigError) as exc:
        load_config(None, ["backtranslate.beam_size=many"])
    assert "backtranslate.beam_size" in str(exc.value) and "'many'" in str(exc.value)


def test_cross_field_rule():
    with pytest.raises(ConfigError, match="num_hypotheses"):
        load_config(None, ["backtranslate.beam_size=2", "backtranslate.num_hypotheses=3"])


def test_input_format_needs_its_paths():
    with pytest.raises(ConfigError, match="needs both 'src' and 'en'"):
        load_config(None, ["bitext.inputs=[{corpus: a, src_lang: de, src: x.de}]"])


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(write(tmp_path, "- a\n- b\n"))
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "a: [\n"))


def test_corpus_names_unique_and_endpoint_scheme():
    two = ("bitext.inputs=[{corpus: a, src_lang: de, format: tsv, path: x}, "
           "{corpus: a, src_lang: fr, format: tsv, path: y}]")
    with pytest.raises(ConfigError, match="corpus names must be unique across inputs: a"):
        load_config(None, [two])
    with pytest.raises(ConfigError, match="s3.endpoint_url"):
        load_config(None, ["s3.endpoint_url=minio:9000"])


def test_override_syntax():
    assert parse("a.b=[1, 2]") == ("a.b", [1, 2])
    with pytest.raises(OverrideError, match="key=value"):
        parse("novalue")


def test_data_placeholder_expands(data_dir):
    cfg = load_config(None, ["bitext.inputs=[{corpus: a, src_lang: de, format: tsv, "
                             "path: '{data}/x.tsv'}]"])
    assert cfg.bitext.inputs[0].path == f"{data_dir}/x.tsv"


def test_set_indexes_lists_of_the_config_file():
    from paralib.config import ConfigError, load_config

    cfg = load_config("configs/paralib-en.yaml", ["train.model.parts.0.dim=64"])
    assert cfg.train.model.parts[0].dim == 64
    with pytest.raises(ConfigError, match=r"train.model.parts is a list of 1; expected an index"):
        load_config("configs/paralib-en.yaml", ["train.model.parts.3.dim=64"])
    with pytest.raises(ConfigError, match=r"select.bounds is absent; expected a list to index"):
        load_config("configs/paralib-en.yaml", ["select.bounds.0.lower=1"])
    with pytest.raises(ConfigError, match=r"train.epochs is a value"):
        load_config("configs/paralib-en.yaml", ["train.epochs.x=1"])


def _alias_bomb(levels: int) -> str:
    """A list of ``levels`` nested aliases, each naming the one before ten times: it expands
    to 10**levels strings in a few hundred bytes ("billion laughs")."""
    parts = ["&a0 [" + ",".join(["lol"] * 10) + "]"]
    parts += [f"&a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


def test_an_alias_bomb_is_refused_quickly_naming_the_file(tmp_path):
    import subprocess
    import sys
    import time

    p = write(tmp_path, f"bitext:\n  max_chars: {_alias_bomb(8)}\n")
    assert len(p.read_bytes()) < 400
    done = subprocess.run([sys.executable, "-m", "paralib", "config", "--config", str(p)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"paralib: error: {p}: line ") and "aliases expand" in done.stderr
    start = time.monotonic()
    with pytest.raises(ConfigError, match="aliases expand to more than 100,000 values"):
        load_config(None, [f"bitext.max_chars={_alias_bomb(8)}"])
    with pytest.raises(ConfigError, match="refers to the value that holds it"):
        load_config(write(tmp_path, "bitext:\n  max_chars: &x [*x]\n"))
    assert time.monotonic() - start < 5


def test_a_wrong_value_is_shown_bounded(tmp_path):
    # 11,111 values: under the loader's limit, and each error shows a summary of the value
    p = write(tmp_path, f"bitext:\n  max_chars: {_alias_bomb(4)}\n  shard_rows: {'9' * 5000}x\n")
    with pytest.raises(ConfigError) as exc:
        load_config(p)
    lines = str(exc.value).splitlines()
    assert lines[0] == f"invalid configuration in {p}:"
    shown = {line.split(":")[0].strip(): line for line in lines[1:]}
    assert set(shown) == {"bitext.max_chars", "bitext.shard_rows"}
    assert "(got [[" in shown["bitext.max_chars"] and "99999" in shown["bitext.shard_rows"]
    assert all(len(line) < 300 for line in lines)


def test_anchors_and_merge_keys_still_load(tmp_path):
    p = write(tmp_path, "backtranslate:\n  <<: {beam_size: &b 8}\n  num_hypotheses: *b\n")
    cfg = load_config(p)
    assert cfg.backtranslate.beam_size == 8 and cfg.backtranslate.num_hypotheses == 8
