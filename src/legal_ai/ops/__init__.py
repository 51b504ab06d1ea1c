"""Running the office's server, the last of the use cases (DESIGN.md §2): the worker loop that
drains every job kind (worker.py), the scheduler and its jobs (scheduler.py, job_runs.py,
tasks.py, alarms.py), the nightly upkeep and the re-index (upkeep.py), backups and their proof
(backups.py), the database's administration for `legal-ai db` (database.py), re-checks of what
only the system writes (rechecks.py), the doctor (doctor/), and the health report: what the
database holds (database_health.py, App.health) with the scheduler's, the backups' and the
re-checks' parts (health.py). Each takes the `Context` it is given; the interfaces (cli/, web/,
demo.py) call them, and the composition root (app.py) answers App.health and App.reindex
through them."""
