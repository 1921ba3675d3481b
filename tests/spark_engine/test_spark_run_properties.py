"""`sgq run --engine spark` over an input with property columns (specs/semantics.md §1, §4c):
an edge file and its `sgq prepare` directory give the single-process engine's output file,
and a program reading a property the input lacks is refused before Spark starts."""

from __future__ import annotations

import pytest

from sgq.cli import main

PROGRAM = """\
.window 4
.slide 2
.output OnTime
.output SameDelay
.output SameCarrier

OnTime(a, b) :- [flight{delay < 15}+](a, b).
SameDelay(a, c) :- flight(a, b){delay: d}, flight(b, c){delay: d}.
SameCarrier(a, c) :- flight(a, b){carrier: k}@t1, flight(b, c){carrier: k}@t2, t1 < t2.
"""

#: delays are integers and floats (one numeric column once prepared), `15` equal to `15.0`;
#: a quoted "15" carrier is text; empty fields are missing
FLIGHTS = """\
src,trg,label,ts,delay,carrier
a,b,flight,0,5,AA
b,c,flight,0,15,AA
c,d,flight,1,15.0,"15"
b,c,flight,1,16,UA
d,e,flight,2,30,"15"
a,b,flight,2,20.5,
c,d,flight,3,10,AA
e,a,flight,3,,
b,c,flight,4,21,AA
a,b,flight,5,5,AA
d,e,flight,6,12.5,"15"
e,a,flight,7,14,
a,b,flight,7,15.0,AA
"""


@pytest.mark.spark
@pytest.mark.slow  # sgq prepare and two Spark runs of five batches
def test_an_edge_file_and_its_prepared_directory_give_the_engine_output(spark, tmp_path):
    program = tmp_path / "q.dl"
    program.write_text(PROGRAM)
    stream = tmp_path / "flights.csv"
    stream.write_text(FLIGHTS)
    assert main(["prepare", str(stream), "-o", str(tmp_path / "clean")]) == 0
    common = ["run", str(program), "--no-progress", "--emit", "deltas"]
    ref = tmp_path / "ref.csv"
    assert main([*common, "-i", str(stream), "-o", str(ref)]) == 0
    labels = {line.split(",")[4] for line in ref.read_text().splitlines()[1:]}
    assert labels == {"OnTime", "SameDelay", "SameCarrier"}
    for source in (stream, tmp_path / "clean"):
        got = tmp_path / f"{source.name}.out.csv"
        assert main([*common, "-i", str(source), "-o", str(got), "--engine", "spark"]) == 0
        assert got.read_text() == ref.read_text(), source.name


def test_a_property_the_input_lacks_is_refused_before_spark_starts(tmp_path, capsys):
    program = tmp_path / "q.dl"
    program.write_text(PROGRAM.replace("carrier", "airline"))
    stream = tmp_path / "flights.csv"
    stream.write_text(FLIGHTS)
    argv = ["run", str(program), "-i", str(stream), "-o", str(tmp_path / "o.csv")]
    assert main([*argv, "--engine", "spark"]) == 2
    err = capsys.readouterr().err
    assert "reads property 'airline'" in err and "its properties are delay, carrier" in err
    assert "Spark engine on" not in err
