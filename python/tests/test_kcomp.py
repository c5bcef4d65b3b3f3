"""Tests of the Python package: the same numbers as the `kcomp` command line (bit for bit),
closed forms, numpy dtypes and layouts, and bad input as ValueError with the CLI's message."""

import json
import math
import os
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import kcomp

ROOT = Path(__file__).resolve().parents[2]
KCOMP = Path(os.environ.get("KCOMP_BIN", ROOT / "target" / "release" / "kcomp"))


def cli(*args):
    """Runs the built binary (cargo test --release builds it before the Python tests)."""
    assert KCOMP.exists(), f"{KCOMP} missing: run `cargo build --release` first"
    out = subprocess.run([str(KCOMP), *map(str, args)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


@pytest.fixture(scope="module")
def protocol():
    return kcomp.synth.protocol("trivially-compositional")


def test_compare_is_bit_identical_to_the_cli(protocol, tmp_path):
    W, Z, _ = protocol
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "Z.npy", Z)
    ours = kcomp.compare(W, Z).to_dict()
    theirs = cli("compare", "--w", tmp_path / "W.npy", "--z", tmp_path / "Z.npy", "--json")
    assert ours["k_z"] == theirs["k_z"]
    assert without(ours["dataset"], "provenance") == without(theirs["dataset"], "provenance")
    # Every estimator but the opt-in ones (learned_w, requential, bdm, llm_program).
    assert len(ours["estimates"]) == len(theirs["estimates"]) == len(kcomp.ESTIMATORS) - 4 == 18
    for a, b in zip(ours["estimates"], theirs["estimates"]):
        # Floats compared exactly (JSON round-trips f64); only the wall time differs.
        assert without(a, "seconds") == without(b, "seconds")


def test_continuous_z_is_bit_identical_to_the_cli(tmp_path):
    W, Z, terms = kcomp.synth.lookup(samples=120, length=2, vocab=3, dim=4, seed=2)
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "Z.npy", Z)
    names = ["compression", "topsim", "entropy", "mapping_mdl"]
    ours = kcomp.compare(W, Z, estimators=names, precision=0.1).to_dict()
    theirs = cli(
        "compare", "--w", tmp_path / "W.npy", "--z", tmp_path / "Z.npy",
        "--precision", 0.1, "--estimators", ",".join(names), "--json",
    )
    assert ours["k_z"] == theirs["k_z"]
    for a, b in zip(ours["estimates"], theirs["estimates"]):
        assert without(a, "seconds") == without(b, "seconds")


def test_synth_lookup_matches_the_cli_terms_and_files(tmp_path):
    W, Z, terms = kcomp.synth.lookup(samples=200, seed=1)
    theirs = cli("synth", "lookup", "--samples", 200, "--seed", 1, "--json")
    assert terms == theirs
    cli_out = tmp_path / "out"
    subprocess.run(
        [str(KCOMP), "synth", "lookup", "--samples", "200", "--seed", "1", "--out", str(cli_out)],
        check=True, capture_output=True,
    )
    assert np.array_equal(W, np.load(cli_out / "W.npy"))
    assert np.array_equal(Z, np.load(cli_out / "Z.npy"))
    assert W.dtype == np.int64 and Z.dtype == np.float64


def test_prequential_matches_the_cli_with_its_curve(tmp_path):
    W, Z, _ = kcomp.synth.language(n_attr=2, n_vals=4, msg_len=2, vocab=4, repeats=4, seed=3)
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "Z.npy", Z)
    ours = kcomp.prequential(W, Z, seed=0)
    theirs = cli("prequential", "--w", tmp_path / "W.npy", "--z", tmp_path / "Z.npy",
                 "--seed", 0, "--json", "--quiet")
    # w_input and w_notes: how W was read, which the command line prints as `note (W)` lines.
    assert without(ours.to_dict(), "wall_seconds", "w_input", "w_notes") == without(
        theirs, "wall_seconds"
    )
    assert ours.w_input["format"] == "npy" and ours.w_input["remapped"] is False
    curve = ours.curve
    assert len(curve["bits"]) == len(ours.chunks) > 1
    # The curve's bits per chunk sum to K(Data) = K(Z|W) (bits).
    assert math.isclose(float(curve["bits"].sum()), ours.k_data, rel_tol=1e-12)
    assert ours.c_l == ours.k_z / ours.k_data


def test_closed_forms_on_a_trivially_compositional_protocol(protocol):
    W, Z, terms = protocol
    n = W.shape[0]
    assert n == 25
    # 25 distinct messages, one per meaning: H = I = log2 25 bits.
    assert kcomp.entropy(W, Z) == pytest.approx(math.log2(25), abs=1e-12)
    assert kcomp.mutual_information(W, Z) == pytest.approx(math.log2(25), abs=1e-12)
    # One symbol per attribute at a fixed position: perfectly disentangled.
    assert kcomp.posdis(W, Z) == pytest.approx(1.0, abs=1e-12)
    assert kcomp.bosdis(W, Z) == pytest.approx(1.0, abs=1e-12)
    assert kcomp.conflict_count(W, Z) == 0.0
    # Exact terms: K(Z) = 25 x 2 x log2 5 bits (uniform); K(Z|W) = two lexicons of 5! each.
    assert terms["exact"]["k_z_bits"] == pytest.approx(50 * math.log2(5), abs=1e-9)
    assert terms["exact"]["parts"]["colour_lexicon"] == pytest.approx(math.log2(120), abs=1e-12)
    assert terms["exact"]["k_z_given_w_bits"] == pytest.approx(2 * math.log2(120), abs=1e-12)


@pytest.mark.parametrize("wt", [np.int64, np.int32, np.uint8, np.int16, np.uint32, np.int8, np.uint16, np.uint64])
@pytest.mark.parametrize("zt", [np.int64, np.int32, np.uint8])
def test_integer_dtypes_give_the_same_numbers(protocol, wt, zt):
    W, Z, _ = protocol
    names = ["topsim", "posdis", "compression"]
    ref = kcomp.compare(W, Z, estimators=names).to_dict()["estimates"]
    got = kcomp.compare(W.astype(wt), Z.astype(zt), estimators=names).to_dict()["estimates"]
    assert [without(e, "seconds") for e in got] == [without(e, "seconds") for e in ref]


def test_float32_and_float64_z_agree_on_exact_values():
    rng = np.random.default_rng(0)
    W = rng.integers(0, 4, size=(60, 3))
    Z = rng.integers(-8, 8, size=(60, 2)) * 0.5  # exactly representable in float32
    a = kcomp.compare(W, Z, estimators=["compression", "topsim"], precision=0.5).to_dict()
    b = kcomp.compare(W, Z.astype(np.float32), estimators=["compression", "topsim"],
                      precision=0.5).to_dict()
    assert a["k_z"] == b["k_z"]
    assert [without(e, "seconds") for e in a["estimates"]] == [
        without(e, "seconds") for e in b["estimates"]
    ]


def test_non_contiguous_and_fortran_arrays_read_in_logical_order(protocol):
    W, Z, _ = protocol
    names = ["topsim", "entropy", "lz76", "compression"]
    ref = [without(e, "seconds") for e in kcomp.compare(W, Z, estimators=names).to_dict()["estimates"]]
    wide = np.zeros((W.shape[0], 2 * W.shape[1]), dtype=np.int64)
    wide[:, ::2] = W
    strided = wide[:, ::2]
    assert not strided.flags.c_contiguous
    fortran = np.asfortranarray(W)
    assert fortran.flags.f_contiguous and not fortran.flags.c_contiguous
    reversed_view = W[::-1][::-1]
    for w in (strided, fortran, reversed_view):
        got = kcomp.compare(w, np.asfortranarray(Z), estimators=names).to_dict()["estimates"]
        assert [without(e, "seconds") for e in got] == ref
    # Lists work too.
    got = kcomp.compare(W.tolist(), Z.tolist(), estimators=names).to_dict()["estimates"]
    assert [without(e, "seconds") for e in got] == ref


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda W, Z: (W[None], Z), "W: expected a 1-D or 2-D array, found 3 dimensions [1, 25, 2]"),
        (lambda W, Z: (W, Z[:3]), "Z: 3 rows, but W has 25 rows"),
        (lambda W, Z: (-W, Z), "W: row 1, column 1: token -4 is negative (token ids are non-negative integers)"),
        (lambda W, Z: (W + 0.5, Z), "W: W must hold integer tokens, found floating-point values"),
        (lambda W, Z: (W, Z.astype(float)), "Z: Z holds floating-point values: give precision="),
        (lambda W, Z: (W[:0], Z[:0]), "W: empty array: no data rows"),
        (lambda W, Z: (W, np.where(Z == 0, np.nan, Z)), "Z: row 2, column 2 is not finite (missing or infinite values cannot be coded)"),
        (lambda W, Z: (W.astype(str), Z), "W: expected a numpy array of integers or floats, found dtype <U"),
    ],
)
def test_bad_input_is_a_value_error_with_the_cli_message(protocol, make, message):
    W, Z, _ = protocol
    with pytest.raises(ValueError) as e:
        kcomp.compare(*make(W, Z))
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, kcomp.KcompError)


def test_bad_options_are_value_errors_that_name_the_python_keyword():
    with pytest.raises(ValueError, match="unexpected keyword argument bogus="):
        kcomp.synth.lookup(bogus=1)
    with pytest.raises(ValueError, match="invalid value 'nope' for kind="):
        kcomp.synth.protocol("nope")
    with pytest.raises(ValueError, match="estimators: unknown 'no_such_estimator'"):
        kcomp.compare([[0]] * 4, [[0]] * 4, estimators=["no_such_estimator"])


def test_errors_speak_python_not_the_command_line(protocol):
    W, Z, _ = protocol
    # A typo is Python's own TypeError: the keywords are the signature's.
    with pytest.raises(TypeError, match="seeed"):
        kcomp.prequential(W, Z, seeed=1)
    # A reference-protocol setting with the online scheme names scheme="reference" and lr=.
    with pytest.raises(ValueError) as e:
        kcomp.prequential(W, Z, lr=0.01)
    text = str(e.value)
    assert 'scheme="reference"' in text and "lr=" in text, text
    assert "--" not in text and "prequential.train" not in text, text
    # Settings with a fixed set of values are checked with their keyword and choices.
    with pytest.raises(ValueError, match="topsim: correlation='kendall' is not one of 'pearson', 'spearman'"):
        kcomp.compare(W, Z, topsim={"correlation": "kendall"})
    with pytest.raises(ValueError, match="topsim: correlation='kendall'"):
        kcomp.topsim(W, Z, correlation="kendall")
    with pytest.raises(ValueError, match="unknown setting corelation="):
        kcomp.compare(W, Z, topsim={"corelation": "spearman"})
    with pytest.raises(ValueError, match="scheme='offline'"):
        kcomp.prequential(W, Z, scheme="offline")
    # No message carries a command-line flag or a parser position.
    for bad in (lambda: kcomp.compare(W, Z.astype(float)),):
        with pytest.raises(ValueError) as e:
            bad()
        assert "--" not in str(e.value) and "line 1 column" not in str(e.value)


def test_a_score_that_does_not_apply_raises_instead_of_a_default():
    # One message for every meaning: no variation, so topsim has no correlation to report.
    W = np.zeros((10, 2), dtype=np.int64)
    Z = np.arange(20).reshape(10, 2) % 3
    e = kcomp.compare(W, Z, estimators=["topsim"])["topsim"]
    if e.ok:
        assert e.score is not None and math.isfinite(e.score)
    else:
        with pytest.raises(ValueError, match="topsim: no score"):
            kcomp.topsim(W, Z)


def test_threads_get_the_same_answers(protocol):
    # The GIL is released during the computation: concurrent calls must not interfere.
    W, Z, _ = protocol
    ref = kcomp.topsim(W, Z)
    out = []
    threads = [threading.Thread(target=lambda: out.append(kcomp.topsim(W, Z))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [ref] * 4


def test_panel_from_a_dict_equals_the_panel_from_toml(tmp_path):
    config = {
        "name": "tiny",
        "seeds": 1,
        "estimators": ["exact", "compression", "topsim"],
        "family": [{
            "name": "lookup-q", "kind": "lookup", "parameter": "ngram", "values": [1, 2],
            "params": {"samples": 60, "length": 2, "vocab": 3, "dim": 4},
        }],
    }
    toml_path = tmp_path / "tiny.toml"
    toml_path.write_text(
        'name = "tiny"\nseeds = 1\nestimators = ["exact", "compression", "topsim"]\n'
        '[[family]]\nname = "lookup-q"\nkind = "lookup"\nparameter = "ngram"\nvalues = [1, 2]\n'
        '[family.params]\nsamples = 60\nlength = 2\nvocab = 4\ndim = 4\n'.replace("vocab = 4", "vocab = 3")
    )
    a = kcomp.panel(config, tmp_path / "a")
    b = kcomp.panel(toml_path, tmp_path / "b")
    rows_a, rows_b = a.table("runs"), b.table("runs")
    assert len(rows_a) == 2 * 3
    strip = lambda rows: [{k: v for k, v in r.items() if "second" not in k} for r in rows]
    assert strip(rows_a) == strip(rows_b)
    with pytest.raises(ValueError):
        kcomp.panel({"name": "x", "no_such_key": 1}, tmp_path / "c")


def test_posdis_golden_value_of_eggs_doctest():
    # The attributes of EGG's posdis doctest (torch.manual_seed(0), two torch.randint(0, 10,
    # (1000, 1))), as the Rust test tests/panel_estimators.rs reads them: 0.978656.
    rows = (ROOT / "tests" / "data" / "posdis_torch_seed0.csv").read_text().split()[1:]
    attrs = np.array([[int(v) for v in r.split(",")] for r in rows])
    assert attrs.shape == (1000, 2)
    assert round(kcomp.posdis(attrs, attrs), 6) == 0.978656
    padded = np.concatenate([attrs, np.zeros_like(attrs)], axis=1)
    assert round(kcomp.posdis(padded, attrs), 6) == 0.978656


ANSWER = (
    "```python\nROW = {'A': '**..', 'B': '..**', 'C': '**.*', 'D': '..*.', 'E': '...*', "
    "'F': '***.', 'G': '*...', 'H': '.***'}\n"
    "print('\\n'.join(ROW[c] for c in input().split()))\n```\n"
)


def test_grid_score_matches_the_cli(tmp_path):
    dataset = ROOT / "tests" / "data" / "rgp" / "k=4_u=2_d=16_type=h.jsonl"
    ours = kcomp.grid.score(ANSWER, dataset, record=0)
    answer = tmp_path / "a.md"
    answer.write_text(ANSWER)
    theirs = cli("grid", "score", "--dataset", dataset, "--record", 0, "--answer", answer,
                 "--json")
    assert ours == theirs
    assert ours["norm_c"] == 100
    with pytest.raises(ValueError, match="record"):
        kcomp.grid.score(ANSWER, dataset, record=10**6)


def test_synth_grammar_matches_the_cli():
    W, Z, terms = kcomp.synth.grammar(samples=100, seed=4)
    assert terms == cli("synth", "grammar", "--samples", 100, "--seed", 4, "--json")
    assert W.shape[0] == Z.shape[0] == 100


def test_grid_report_writes_the_cli_tables(tmp_path):
    answers = ROOT / "tests" / "data" / "answers"
    line = kcomp.grid.report(answers, out=tmp_path / "py")
    assert line.startswith("scored 2 answers (2 ok")
    out = subprocess.run([str(KCOMP), "grid", "report", str(answers), "--out", str(tmp_path / "cli")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for table in ("per_answer.csv", "summary.csv", "table3.csv"):
        assert (tmp_path / "py" / table).read_text() == (tmp_path / "cli" / table).read_text()
    with pytest.raises(ValueError, match="is not an existing directory"):
        kcomp.grid.report(tmp_path / "missing")


def test_bosdis_eos_matches_the_cli(tmp_path):
    # A protocol whose token 0 is an ordinary letter: leaving it out (EGG's eos = 0) changes
    # the score, and the Python setting gives the CLI's `--set bosdis.eos=0` number exactly.
    W, Z, _ = kcomp.synth.protocol("order-sensitive")
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "Z.npy", Z)
    base = ["compare", "--w", tmp_path / "W.npy", "--z", tmp_path / "Z.npy"]
    every = cli(*base, "--estimators", "bosdis", "--json")["estimates"][0]["score"]
    egg = cli(*base, "--estimators", "bosdis", "--set", "bosdis.eos=0", "--json")
    egg = egg["estimates"][0]["score"]
    assert kcomp.bosdis(W, Z) == every
    assert kcomp.bosdis(W, Z, eos=0) == egg
    assert (W == 0).any()


def test_scores_are_the_registry_scores():
    assert "lz78" in kcomp.SCORES and "tre_cosine" in kcomp.SCORES
    assert not {"compression", "requential", "bdm", "prequential"} & set(kcomp.SCORES)
    for name in kcomp.SCORES:
        assert callable(getattr(kcomp, name))


def test_lz76_and_lz78_count_different_parsings():
    # '1001111011000010' as two messages of 8 read in row order (LZ reads the concatenation;
    # a constant Z is refused, so each row has its own meaning): LZ76 (Kaspar-Schuster) 6
    # phrases, LZ78 8.
    W = np.array([[int(c) for c in "10011110"], [int(c) for c in "11000010"]])
    Z = np.array([[0], [1]])
    assert kcomp.lz76(W, Z) == 6.0
    assert kcomp.lz78(W, Z) == 8.0


def test_requential_is_a_code_length_beside_k_z(protocol):
    W, Z, _ = protocol
    e = kcomp.requential(W, Z, learners=["marginal", "ngram1"])
    n = e.native
    assert e.k_z_given_w_bits == pytest.approx(
        n["selection_bits"] + n["k_req_bits"] + n["rec_overhead_bits"] + n["data_bits"]
    )
    assert n["k_z_requential_bits"] > 0 and n["c_requential"] > 0
    # The same number as compare() with the same settings.
    same = kcomp.compare(
        W, Z, estimators=["requential"], requential={"learners": ["marginal", "ngram1"]}
    ).estimates[0]
    assert same.k_z_given_w_bits == e.k_z_given_w_bits
    with pytest.raises(kcomp.KcompError, match="requential"):
        kcomp.requential(W, Z, learners=["nope"])


def test_bdm_needs_pybdm_tables_and_matches_its_readme():
    import os

    ctm = os.environ.get("KCOMP_PYBDM_CTM")
    if not ctm:
        with pytest.raises(kcomp.KcompError, match="pybdm"):
            kcomp.bdm([0, 1] * 18, ctm="/nonexistent/pybdm")
        pytest.skip("KCOMP_PYBDM_CTM is not set (no pybdm CTM tables): parity runs in cargo test")
    r = kcomp.bdm([0, 1] * 18)
    assert r["bits"] == pytest.approx(28.575689149882564, abs=1e-9)
    r = kcomp.bdm([1] * 10, partition="recursive")
    assert r["bits"] == pytest.approx(22.784225562763474, abs=1e-12)
    assert kcomp.bdm(np.ones((12, 12), dtype=int))["bits"] == pytest.approx(25.176631293734488)


# ---- numbers a reader can interpret, tidy tables, EGG's conventions and logs ----

DATA = ROOT / "tests" / "data"


def test_bits_saved_per_row_beside_c_as_the_cli(protocol, tmp_path):
    W, Z, _ = protocol
    np.save(tmp_path / "W.npy", W)
    np.save(tmp_path / "Z.npy", Z)
    ref = cli("compare", "--w", tmp_path / "W.npy", "--z", tmp_path / "Z.npy", "--estimators",
              "mapping_mdl,posdis", "--json")
    got = kcomp.compare(W, Z, estimators=["mapping_mdl", "posdis"])
    mdl = got["mapping_mdl"]
    assert mdl.bits_saved_per_row == ref["estimates"][0]["bits_saved_per_row"]
    assert mdl.bits_saved_per_row == pytest.approx((mdl.k_z_bits - mdl.k_z_given_w_bits) / len(W))
    assert got["posdis"].bits_saved_per_row is None
    assert any("C grows with N" in n for n in got.raw["notes"])
    p = kcomp.prequential(W, Z, seed=0)
    assert p.bits_saved_per_row == pytest.approx((p.k_z - p.k_data) / p.n_encoded)


def test_tidy_table_one_row_per_estimator_and_quantity_with_units(protocol):
    W, Z, _ = protocol
    cmp = kcomp.compare(W, Z, estimators=["exact", "mapping_mdl", "topsim", "entropy"])
    rows = cmp.tidy()
    keys = {(r["estimator"], r["quantity"]) for r in rows}
    for q in ("k_z_given_w", "c", "bits_saved_per_row", "seconds"):
        assert ("mapping_mdl", q) in keys
    assert ("topsim", "score") in keys and ("topsim", "c") not in keys
    assert ("K(Z)", "k_z") in keys
    units = {(r["estimator"], r["quantity"]): r["unit"] for r in rows}
    assert units[("mapping_mdl", "k_z_given_w")] == "bits"
    assert units[("mapping_mdl", "bits_saved_per_row")] == "bits per row"
    assert units[("entropy", "score")] == kcomp.ESTIMATOR_INFO["entropy"][0]
    assert all(r["n"] == len(W) and math.isfinite(r["value"]) for r in rows)
    # exact does not apply to arrays without a generator: no rows, no NaN.
    assert not any(r["estimator"] == "exact" for r in rows)
    pd = pytest.importorskip("pandas")
    df = cmp.to_pandas()
    assert list(df.columns) == ["estimator", "quantity", "value", "unit", "direction", "n"]
    assert not df["value"].isna().any()
    wide = cmp.to_pandas(wide=True)
    assert len(wide.columns) == 7 and len(wide) == 4
    assert isinstance(df, pd.DataFrame)


def test_the_printed_table_keeps_its_columns(protocol):
    W, Z, _ = protocol
    lines = str(kcomp.compare(W, Z)).splitlines()
    header = lines[1]
    at = header.index("status")
    for line in lines[2:]:
        if line.endswith(" ok"):
            assert line.index(" ok") + 1 == at, (header, line)
    assert any(line.startswith("topsim_normalised_edit ") for line in lines)


def test_compare_many_warns_when_datasets_differ_in_n(protocol):
    W, Z, _ = protocol
    with pytest.warns(kcomp.KcompWarning, match="differ in N"):
        many = kcomp.compare_many({"x1": (W, Z), "x4": (np.tile(W, (4, 1)), np.tile(Z, (4, 1)))},
                                  estimators=["mapping_mdl"])
    c1, c4 = many["x1"]["mapping_mdl"].c, many["x4"]["mapping_mdl"].c
    assert c4 > 2 * c1  # C grows with N
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kcomp.compare_many({"a": (W, Z), "b": (W, Z)}, estimators=["posdis"])


def _egg_language(name):
    folder = DATA / "topsim_egg" / name
    W = np.loadtxt(folder / "W.csv", delimiter=",", dtype=np.int64)
    Z = np.loadtxt(folder / "Z.csv", delimiter=",", dtype=np.int64)
    return W, Z


def test_topsim_conventions_against_eggs_formulas():
    golden = json.loads((DATA / "topsim_egg" / "golden.json").read_text())
    for name, g in golden.items():
        W, Z = _egg_language(name)
        assert kcomp.topsim(W, Z, convention="egg") == pytest.approx(g["egg_hamming_edit"], abs=1e-12)
        assert kcomp.topsim(W, Z, convention="egg", z_distance="cosine") == pytest.approx(
            g["egg_onehot_cosine_edit"], abs=1e-12)
        # Meanings as a distance matrix (e.g. similarity ratings): Z's Hamming distances.
        d = (Z[:, None, :] != Z[None, :, :]).sum(-1).astype(float)
        assert kcomp.topsim(W, z_distances=d, convention="egg") == pytest.approx(
            g["egg_hamming_edit"], abs=1e-12)
    W, Z = _egg_language("variable_length")
    e = kcomp.compare(W, Z, estimators=["topsim"])["topsim"]
    assert e.native["convention"] == "kcomp"
    e = kcomp.compare(W, Z, estimators=["topsim"], topsim={"convention": "egg"})["topsim"]
    assert e.native["convention"] == "egg"
    with pytest.raises(ValueError, match="distance"):
        kcomp.topsim(W, z_distances=np.ones((3, 3)))


class _Interaction:
    """The shape of EGG's egg.core.Interaction (fields only; EGG is not needed)."""

    def __init__(self, **fields):
        for k in ("sender_input", "receiver_input", "labels", "aux_input", "message",
                  "receiver_output", "message_length", "aux"):
            setattr(self, k, fields.get(k))


def test_egg_interaction_loader():
    rng = np.random.default_rng(0)
    attrs = np.array([[a, b] for a in range(4) for b in range(3)] * 3)
    one_hot = np.concatenate([np.eye(4)[attrs[:, 0]], np.eye(3)[attrs[:, 1]]], axis=1)
    msgs = np.stack([attrs[:, 0] + 1, attrs[:, 1] + 5, np.zeros(len(attrs), int)], 1)
    # Gumbel-softmax messages: one distribution per position over 8 symbols.
    gumbel = np.eye(8)[msgs] + 0.01 * rng.random((len(msgs), 3, 8))
    inter = _Interaction(sender_input=one_hot.astype(np.float32), message=gumbel)
    # Blocks of 4 and 3 values: named; blocks of one width are found alone (below).
    W, Z = kcomp.egg.load(inter, n_values=(4, 3))
    assert (W == msgs).all() and (Z == attrs).all()
    square = np.concatenate([np.eye(4)[attrs[:, 0]], np.eye(4)[attrs[:, 1]]], axis=1)
    W, Z = kcomp.egg.load(_Interaction(sender_input=square, message=msgs))
    assert (Z == attrs).all()
    # Labels (attribute rows) win over sender_input; message_length zeroes what follows.
    lengths = np.full(len(msgs), 3)
    lengths[0] = 1
    inter = _Interaction(sender_input=one_hot, labels=attrs, message=msgs + 1,
                         message_length=lengths)
    W, Z = kcomp.egg.load(inter)
    assert (Z == attrs).all() and list(W[0]) == [msgs[0, 0] + 1, 0, 0]
    # A dict works too, and the result goes straight into compare.
    W, Z = kcomp.egg.load({"message": msgs, "sender_input": square}, meanings="sender_input")
    assert kcomp.posdis(W, Z) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="interaction.message"):
        kcomp.egg.load(_Interaction(sender_input=one_hot))


CAPTIONS = [
    "Le café rouge.",
    "Le CAFE\u0301 bleu !",
    "一只 猫 rouge",
    "一只 猫 bleu 👍🏽",
    "Straße rouge",
    "STRASSE bleu",
] * 4
CAPTION_Z = np.array([[(i % 6) // 2, i % 2] for i in range(24)])


def test_sentences_equal_the_cli_on_a_text_file(tmp_path):
    (tmp_path / "W.txt").write_text("\n".join(CAPTIONS) + "\n", encoding="utf-8")
    np.save(tmp_path / "Z.npy", CAPTION_Z)
    names = ["prequential", "topsim_normalised_edit", "topsim_jaccard", "entropy"]
    ours = kcomp.compare(CAPTIONS, CAPTION_Z, estimators=names).to_dict()
    theirs = cli("compare", "--w", tmp_path / "W.txt", "--z", tmp_path / "Z.npy",
                 "--estimators", ",".join(names), "--json")
    for a, b in zip(ours["estimates"], theirs["estimates"]):
        assert without(a, "seconds") == without(b, "seconds")
    w_in = ours["dataset"]["provenance"]["params"]["w_input"]
    assert w_in == theirs["dataset"]["provenance"]["params"]["w_input"]
    assert (w_in["distinct"], w_in["pad"], w_in["max_length"]) == (12, 12, 5)
    # prequential from Python reads the same W and says how.
    r = kcomp.prequential(CAPTIONS, CAPTION_Z, learners="marginal,ngram1")
    assert r.w_input["pad"] == 12 and r.w_notes[0].startswith("W read as sentences")


def test_tokenise_on_unicode_text():
    t = kcomp.tokenise(CAPTIONS[:6])
    assert t.vocabulary == ["!", ".", "bleu", "café", "le", "rouge", "strasse", "straße",
                            "一", "只", "猫", "👍🏽"]
    assert t.pad == 12 and t.ids.shape == (6, 5) and t.ids.dtype == np.int64
    # "Le CAFE + combining acute bleu !": café is one word (NFC), punctuation its own token.
    assert [t.vocabulary[i] for i in t.ids[1] if i != t.pad] == ["le", "café", "bleu", "!"]
    c = kcomp.tokenise(["Ab  c", "q\u0323 👍🏽"], tokeniser="chars")
    assert c.vocabulary == [" ", "a", "b", "c", "q\u0323", "👍🏽"]
    assert kcomp.tokenise(["Big Cat"], keep_case=True).vocabulary == ["Big", "Cat"]
    with pytest.raises(kcomp.KcompError, match="sentence 2 has no tokens"):
        kcomp.tokenise(["a", "  "])
    with pytest.raises(kcomp.KcompError, match="not words, chars or a tokenizer.json"):
        kcomp.tokenise(["a"], tokeniser="bytes")


def test_ragged_lists_and_sparse_ids_with_padding():
    msgs = [[(i * 7 + k * 3) % 5 for k in range(1 + i % 4)] for i in range(30)]
    Z = np.array([[i % 3, (i // 3) % 4] for i in range(30)])
    names = ["topsim", "topsim_normalised_edit", "topsim_jaccard"]
    topsim = {"w_distance": "hamming"}
    ragged = kcomp.compare(msgs, Z, estimators=names, topsim=None)
    padded = [m + [99] * (9 - len(m)) for m in msgs]
    by_hand = kcomp.compare(np.array(padded), Z, estimators=names, pad=99)
    for e in names:
        assert ragged[e].score == by_hand[e].score
    assert ragged.dataset["w"]["pad"] == 5 and by_hand.dataset["w"]["pad"] == 5
    # Ids near 10^7, remapped in increasing order: the numbers of the dense ids.
    sparse = [[9_999_000 + 97 * t for t in m] for m in msgs]
    s = kcomp.compare(sparse, Z, estimators=names + ["prequential"])
    d = kcomp.compare(msgs, Z, estimators=names + ["prequential"])
    for e in names + ["prequential"]:
        assert (s[e].score, s[e].k_z_given_w_bits) == (d[e].score, d[e].k_z_given_w_bits)
    t = kcomp.tokenise(sparse)
    assert t.vocabulary[:2] == ["9999000", "9999097"] and t.pad == 5
    with pytest.raises(kcomp.KcompError, match="holds sentences"):
        kcomp.compare(CAPTIONS, CAPTION_Z, pad=0)
    with pytest.raises(kcomp.KcompError, match="row 2: not a list of integer token ids"):
        kcomp.compare([[1], ["x"], [2]], np.zeros((3, 1), dtype=int))
    _ = topsim


def test_overlay_draws_several_runs(tmp_path):
    Z = CAPTION_Z + 0.25
    a = kcomp.prequential(CAPTIONS, Z, precision=0.25, learners="marginal,ngram1")
    b = kcomp.prequential(CAPTIONS[::-1], Z, precision=0.25, learners="marginal,ngram1")
    paths = kcomp.overlay({"in order": a, "reversed": b}, tmp_path / "o.png")
    assert paths == [str(tmp_path / "o.png"), str(tmp_path / "o.svg")]
    assert (tmp_path / "o.png").read_bytes().startswith(b"\x89PNG")
    assert "reversed" in (tmp_path / "o.svg").read_text()
