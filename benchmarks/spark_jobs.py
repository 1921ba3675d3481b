"""What the Spark jobs of one job group did, read from Spark's own status store (the
listener behind the Spark UI, `AppStatusStore`), through py4j: no UI or HTTP needed, so it
works in any session, the tests' included.

Per group: the jobs, their summed run time, and the shuffle bytes and records their stages
read and wrote (a stage whose shuffle output an earlier job kept is skipped and counts
nothing); `profile` lists them per job and stage, what `sgq bench --engine spark --profile`
prints to find where a batch's jobs and shuffles go.
"""

from __future__ import annotations

from pyspark.sql import SparkSession


def _store(spark: SparkSession):
    """The status store, once the listener bus has delivered every event so far (the
    listener is asynchronous)."""
    sc = spark.sparkContext._jsc.sc()
    sc.listenerBus().waitUntilEmpty(10_000)
    return sc.statusStore()


def _seconds(job) -> float:
    start, end = job.submissionTime(), job.completionTime()
    if start.isEmpty() or end.isEmpty():
        return 0.0
    return (end.get().getTime() - start.get().getTime()) / 1000


def profile(spark: SparkSession, group: str) -> list[dict]:
    """Per job of `group` (in order): `job` id, `name` (its call site), `seconds`, and its
    `stages`: id, name, tasks, status, shuffle bytes and records read and written."""
    store = _store(spark)
    out = []
    for job_id in sorted(spark.sparkContext.statusTracker().getJobIdsForGroup(group)):
        job = store.job(job_id)
        ids = job.stageIds()
        stages = []
        for k in range(ids.length()):
            stage = store.lastStageAttempt(ids.apply(k))
            stages.append(
                {
                    "stage": stage.stageId(),
                    "name": stage.name(),
                    "tasks": stage.numTasks(),
                    "status": stage.status().toString(),
                    "read_bytes": stage.shuffleReadBytes(),
                    "read_records": stage.shuffleReadRecords(),
                    "write_bytes": stage.shuffleWriteBytes(),
                    "write_records": stage.shuffleWriteRecords(),
                }
            )
        out.append({"job": job_id, "name": job.name(), "seconds": _seconds(job), "stages": stages})
    return out


def job_metrics(spark: SparkSession, group: str) -> dict:
    """`group`'s jobs, their summed seconds, and shuffle bytes and records read and
    written."""
    jobs = profile(spark, group)
    stages = [s for j in jobs for s in j["stages"]]
    return {
        "jobs": len(jobs),
        "job_seconds": sum(j["seconds"] for j in jobs),
        "shuffle_read": sum(s["read_bytes"] for s in stages),
        "shuffle_write": sum(s["write_bytes"] for s in stages),
        "shuffle_records": sum(s["write_records"] for s in stages),
    }


def profile_lines(jobs: list[dict]) -> list[str]:
    """`profile` as text: a line per job, an indented line per stage that ran."""
    lines = []
    for j in jobs:
        lines.append(f"  job {j['job']} {j['seconds']:.2f}s {j['name']}")
        for s in j["stages"]:
            if s["status"] == "SKIPPED":
                continue
            lines.append(
                f"    stage {s['stage']} {s['tasks']} tasks, shuffle read "
                f"{s['read_records']:,} rows, write {s['write_records']:,} rows "
                f"({s['write_bytes']:,} B): {s['name']}"
            )
    return lines
