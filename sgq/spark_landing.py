"""A landing directory as a Structured Streaming source: `spark.readStream.format("sgq_landing")`
gives one row `(name)` per `sgq prepare` output that has landed, in the order the
single-process `--follow` reads them (sgq/follow.py `landed`): subdirectories in name order,
each once its `_PREPARED.json` is there, none past one whose job has not finished.

Why not Spark's Parquet file source over `DIR/*/edges/*.parquet`: it orders new files by
modification time (`latestFirst` only reverses that; `maxFilesPerTrigger` only cuts the
list), takes part files as soon as they appear, before their job has written its manifest
(a job that dies half-way would be read half), and hides `_PREPARED.json` (names starting
with `_` are never listed). Here the unit is a finished prepare output, named by time.

An offset is `{"after": the last name read, "names": the names of its micro-batch}`, so a
micro-batch run again after a restart (Spark's offset log holds its end offset) reads the
same subdirectories whatever landed since. The rows carry names only: the driver reads the
edges with Spark's own Parquet reader (sgq/spark_follow.py).
"""

from __future__ import annotations

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

NAME = "sgq_landing"


class LandingSource(DataSource):
    """`option("path", DIR)`: the landing directory."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return "name string"

    def streamReader(self, schema) -> DataSourceStreamReader:
        return _Reader(self.options["path"])


class _Reader(DataSourceStreamReader):
    def __init__(self, path: str) -> None:
        self.path = path
        self.last: dict = self.initialOffset()

    def initialOffset(self) -> dict:
        return {"after": None, "names": []}

    def latestOffset(self, start: dict | None = None, limit=None) -> dict:
        """Every finished output after `start` (pyspark before 4.2 passes no `start`: the
        reader's last answer is it)."""
        from .follow import landed

        start = self.last if start is None else start
        names = landed(self.path, start["after"])
        if names:
            self.last = {"after": names[-1], "names": names}
        else:
            self.last = start
        return self.last

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        if end == start:
            return []
        return [InputPartition(end["names"])]

    def read(self, partition: InputPartition):
        for name in partition.value:
            yield (name,)

    def commit(self, end: dict) -> None:
        pass
