"""Israel's clock on the desk (text/clock.py, issue 37 item 8): every moment shown in
Asia/Jerusalem, summer time right on both of its nights — 27.3.2026 (02:00 becomes 03:00) and
25.10.2026 (02:00 becomes 01:00) — a stored UTC moment late in the evening shown on her next day,
dates as she writes them (1.6.2021), and a day she types meaning her day, midnight to midnight,
23 or 25 hours long on those nights."""

import datetime as dt

from legal_ai.text import clock
from legal_ai.web.desk import labels

UTC = dt.UTC


def test_moments_on_israels_clock_across_both_summer_time_nights():
    # The night summer time starts: 23:30 UTC is 01:30 winter time, 00:30 UTC already 03:30.
    assert labels.when(dt.datetime(2026, 3, 26, 23, 30, tzinfo=UTC)) == "27.3.2026 01:30"
    assert labels.when(dt.datetime(2026, 3, 27, 0, 30, tzinfo=UTC)) == "27.3.2026 03:30"
    # The night it ends: 22:30 UTC is 01:30 summer time, 23:30 UTC is 01:30 again (winter).
    assert labels.when(dt.datetime(2026, 10, 24, 22, 30, tzinfo=UTC)) == "25.10.2026 01:30"
    assert labels.when(dt.datetime(2026, 10, 24, 23, 30, tzinfo=UTC)) == "25.10.2026 01:30"
    assert labels.when("2026-10-25T00:30:00+00:00") == "25.10.2026 02:30"  # an ISO string
    # A naive moment is UTC (what the database stores); summer: three hours on.
    assert labels.when(dt.datetime(2026, 7, 1, 21, 15)) == "2.7.2026 00:15"
    assert labels.when(None) == "—"


def test_dates_as_she_writes_them_her_day_not_utcs():
    late = dt.datetime(2026, 1, 31, 22, 30, tzinfo=UTC)  # 00:30 on 1.2 in Israel
    assert labels.hebrew_date(late) == "1.2.2026"
    assert labels.hebrew_date(dt.date(2021, 6, 1)) == "1.6.2021"
    assert labels.hebrew_date("2021-06-01") == "1.6.2021"
    for typed in ("1.6.2021", "1/6/2021", "2021-06-01", " 01.06.21 "):
        assert clock.parse_day(typed) == dt.date(2021, 6, 1), typed
    for typed in ("31.2.2026", "1.6", "אתמול", ""):
        assert clock.parse_day(typed) is None, typed


def test_a_day_is_hers_midnight_to_midnight_23_or_25_hours_on_the_dst_nights():
    start = clock.day_start(dt.date(2026, 3, 27))
    assert start.astimezone(UTC) == dt.datetime(2026, 3, 26, 22, 0, tzinfo=UTC)
    after = clock.day_start(dt.date(2026, 3, 28))
    assert after.astimezone(UTC) == dt.datetime(2026, 3, 27, 21, 0, tzinfo=UTC)
    assert after.astimezone(UTC) - start.astimezone(UTC) == dt.timedelta(hours=23)
    end = clock.day_start(dt.date(2026, 10, 25)).astimezone(UTC)
    assert clock.day_start(dt.date(2026, 10, 26)).astimezone(UTC) - end == dt.timedelta(hours=25)
    # Israel's week opens on Sunday.
    assert clock.week_start(dt.date(2026, 3, 27)) == dt.date(2026, 3, 22)
    assert clock.week_start(dt.date(2026, 3, 22)) == dt.date(2026, 3, 22)
