"""Each converter on a tiny sample written in its source package's format (no extra needed):
times, labels, directions, ties, duplicates and self-loops as docs/data.md says."""

from __future__ import annotations

import calendar
import gzip
import io
import tarfile
import zipfile

import pytest
from sgq.base.errors import UserError

from sgq.datasets import collegemsg, nycflights, sociopatterns, vega_flights
from sgq.datasets.rows import write_stream


def _utc(*fields) -> int:
    return calendar.timegm((*fields, 0, 0, 0))


def test_collegemsg_times_are_minutes_read_as_utc_and_ties_keep_file_order(tmp_path):
    sample = (
        "Source,Target,Timestamp\n"
        "1,2,4/15/04 2:56 PM\n"
        "3,3,4/15/04 2:56 PM\n"  # a self-loop, kept
        "5,2,4/15/04 12:05 AM\n"  # earlier: sorted first
        "1,2,4/15/04 2:56 PM\n"  # a duplicate, kept
    )
    path = tmp_path / "collegemsg.csv.gz"
    path.write_bytes(gzip.compress(sample.encode()))
    rows = list(collegemsg.rows(path))
    assert rows == [
        ("5", "2", "msg", _utc(2004, 4, 15, 0, 5)),
        ("1", "2", "msg", _utc(2004, 4, 15, 14, 56)),
        ("3", "3", "msg", _utc(2004, 4, 15, 14, 56)),
        ("1", "2", "msg", _utc(2004, 4, 15, 14, 56)),
    ]
    assert all(ts % 60 == 0 for *_, ts in rows)


def test_collegemsg_refuses_another_shape():
    with pytest.raises(UserError, match="Source,Target,Timestamp"):
        collegemsg.read_text(io.StringIO("a,b,c\n1,2,3\n"))


def test_a_contact_is_two_edges_at_one_instant_labelled_by_the_source_role():
    lines = ["1291597360\t1157\t1191\tMED\tPAT\n", "1291597340\t1157\t1232\tMED\tADM\n"]
    assert sociopatterns.read_lines(lines, True, "h") == [
        ("1157", "1232", "med", 1291597340, "MED", "ADM"),
        ("1232", "1157", "adm", 1291597340, "ADM", "MED"),
        ("1157", "1191", "med", 1291597360, "MED", "PAT"),
        ("1191", "1157", "pat", 1291597360, "PAT", "MED"),
    ]
    school = sociopatterns.read_lines(["1254386420 1558 1567 3B 3B\n"], False, "s")
    assert [r[:4] for r in school] == [
        ("1558", "1567", "contact", 1254386420),
        ("1567", "1558", "contact", 1254386420),
    ]
    with pytest.raises(UserError, match="s:1"):
        sociopatterns.read_lines(["12 a b\n"], False, "s")


NYC = (
    "year,month,day,dep_time,sched_dep_time,dep_delay,arr_time,sched_arr_time,arr_delay,"
    "carrier,flight,tailnum,origin,dest,air_time,distance,hour,minute,time_hour\n"
    # winter: New York is UTC-5; 05:15 + 2 min
    "2013,1,1,517,515,2,830,819,11,UA,1545,N14228,EWR,IAH,227,1400,5,15,2013-01-01T10:00:00Z\n"
    # summer: UTC-4; 23:59 + 30 min: departs the next day
    "2013,7,1,29,2359,30,300,250,10,9E,3,N1,JFK,BOS,40,187,23,59,2013-07-02T03:00:00Z\n"
    # cancelled: no dep_delay
    "2013,1,1,NA,600,NA,NA,700,NA,AA,1,N2,LGA,ORD,NA,733,6,0,2013-01-01T11:00:00Z\n"
)


def test_nycflights_times_are_actual_departures_in_utc_and_cancelled_flights_are_left_out():
    rows, cancelled = nycflights.read_text(io.StringIO(NYC))
    assert cancelled == 1
    assert [r[:4] for r in rows] == [
        ("EWR", "IAH", "UA", _utc(2013, 1, 1, 10, 17)),
        ("JFK", "BOS", "9E", _utc(2013, 7, 2, 4, 29)),
    ]
    # properties ride along in the order of PROPERTIES, for when edges carry them
    assert dict(zip(nycflights.PROPERTIES, rows[0][4:])) == {
        "dep_delay": 2,
        "arr_delay": 11,
        "distance": 1400,
        "flight": "1545",
        "tailnum": "N14228",
    }


def test_nycflights_reads_the_zip_the_package_ships(tmp_path):
    path = tmp_path / "flights.csv.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("flights.csv", NYC)
    assert len(list(nycflights.rows(path))) == 2


def _flights_parquet():
    import datetime

    import pyarrow as pa

    return pa.table(
        {
            "date": pa.array(
                [
                    datetime.datetime(2001, 1, 1, 0, 3),
                    datetime.datetime(2001, 1, 1, 0, 1),
                    datetime.datetime(2001, 1, 1, 0, 1),
                    datetime.datetime(1969, 12, 31, 23, 59),
                ],
                pa.timestamp("us"),
            ),
            "delay": [3, 33, -13, 0],
            "distance": [100, 2176, 2345, 5],
            "origin": ["LAX", "LAS", "ANC", "OLD"],
            "destination": ["ATL", "PHL", "LAX", "OLD"],
        }
    )


@pytest.mark.parametrize("shape", ["parquet", "folder", "tarball"])
def test_vega_flights_from_the_npm_tarball_its_folder_or_the_parquet(tmp_path, shape):
    import pyarrow.parquet as pq

    data = tmp_path / "package" / "data"
    data.mkdir(parents=True)
    pq.write_table(_flights_parquet(), data / "flights-3m.parquet")
    if shape == "parquet":
        path = data / "flights-3m.parquet"
    elif shape == "folder":
        path = tmp_path / "package"
    else:
        path = tmp_path / "vega-datasets-0.0.0.tgz"
        with tarfile.open(path, "w:gz") as tar:
            tar.add(tmp_path / "package", arcname="package")
    rows = list(vega_flights.rows(path))
    assert rows == [
        ("OLD", "OLD", "flight", -60, 0, 5),  # before 1970: negative; a self-loop, kept
        ("LAS", "PHL", "flight", 978307260, 33, 2176),  # a tie: the file's order
        ("ANC", "LAX", "flight", 978307260, -13, 2345),
        ("LAX", "ATL", "flight", 978307380, 3, 100),
    ]


def test_vega_flights_says_what_is_missing(tmp_path):
    with pytest.raises(UserError, match="no data/flights-3m.parquet"):
        list(vega_flights.rows(tmp_path))


def test_write_stream_writes_the_fixed_fields_and_refuses_rows_out_of_order():
    out = io.StringIO()
    assert write_stream([("a", "b", "l", -5, 1.5), ("b", "c", "l", 7, 2)], out) == (2, -5, 7)
    assert out.getvalue() == "src,trg,label,ts\na,b,l,-5\nb,c,l,7\n"
    with pytest.raises(UserError, match="row 2 has time 1 after time 7"):
        write_stream([("a", "b", "l", 7), ("a", "b", "l", 1)], io.StringIO())


def test_property_columns_read_back_as_the_values_written(tmp_path):
    """A missing value is an empty field; a string that reads as a number, or is empty, is
    quoted; a separator in a value is quoted (specs/semantics.md §1)."""
    from sgq.datasets.rows import write_stream

    rows = [("a", "b", "f", 1, 15, "15", None), ("a", "b", "f", 2, 2.5, "", "x,y")]
    write_stream(rows, tmp_path / "p.csv", properties=("n", "s", "t"))
    assert (tmp_path / "p.csv").read_text() == (
        'src,trg,label,ts,n,s,t\na,b,f,1,15,"15",\na,b,f,2,2.5,"","x,y"\n'
    )
