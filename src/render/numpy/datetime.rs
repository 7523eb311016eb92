//! `np.datetime_as_string` of a count of a `datetime64` unit: NumPy's calendar arithmetic
//! (`convert_datetime_to_datetimestruct`, `make_iso_8601_datetime`), wrapping where NumPy's
//! C arithmetic wraps.

use crate::format::dtype::{DateUnit, TimeUnit};

/// The fields of `npy_datetimestruct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DateTimeStruct {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
    us: i64,
    ps: i64,
    attos: i64,
}

/// `extract_unit_64`: floor division of `*d` by `unit`, leaving the remainder in `*d`.
fn extract(d: &mut i64, unit: i64) -> i64 {
    let q = d.checked_div_euclid(unit).unwrap_or(0);
    *d = d.checked_rem_euclid(unit).unwrap_or(0);
    q
}

/// `days_to_yearsdays`: the year of `*days` (days since 1970-01-01), leaving the day of
/// the year in `*days`. Wraps as NumPy's C arithmetic does at the ends of the range.
fn days_to_yearsdays(days: &mut i64) -> i64 {
    // 400 * 365 + 100 - 4 + 1.
    const DAYS_PER_400_YEARS: i64 = 146_097;
    // Relative to the year 2000 (divisible by 400): 365 * 30 + 7 days after 1970.
    let mut d = days.wrapping_sub(10_957);
    let mut year = extract(&mut d, DAYS_PER_400_YEARS).wrapping_mul(400);
    if d >= 366 {
        year = year.wrapping_add(d.wrapping_sub(1).wrapping_div(36524).wrapping_mul(100));
        d = d.wrapping_sub(1).wrapping_rem(36524);
        if d >= 365 {
            year = year.wrapping_add(d.wrapping_add(1).wrapping_div(1461).wrapping_mul(4));
            d = d.wrapping_add(1).wrapping_rem(1461);
            if d >= 366 {
                year = year.wrapping_add(d.wrapping_sub(1).wrapping_div(365));
                d = d.wrapping_sub(1).wrapping_rem(365);
            }
        }
    }
    *days = d;
    year.wrapping_add(2000)
}

/// `set_datetimestruct_days`: year, month and day of `days` since 1970-01-01.
fn set_days(days: i64, ts: &mut DateTimeStruct) {
    const COMMON: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    const LEAP: [i64; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = days;
    ts.year = days_to_yearsdays(&mut d);
    let y = ts.year;
    let leap = y & 3 == 0 && (y.wrapping_rem(100) != 0 || y.wrapping_rem(400) == 0);
    let lengths = if leap { &LEAP } else { &COMMON };
    for (month, &len) in (1i64..=12).zip(lengths) {
        if d < len {
            ts.month = month;
            ts.day = d.wrapping_add(1);
            return;
        }
        d = d.wrapping_sub(len);
    }
}

/// `convert_datetime_to_datetimestruct` for a count `dt` of the base `unit`.
fn datetime_struct(mut dt: i64, unit: TimeUnit) -> DateTimeStruct {
    let mut ts = DateTimeStruct {
        year: 1970,
        month: 1,
        day: 1,
        hour: 0,
        min: 0,
        sec: 0,
        us: 0,
        ps: 0,
        attos: 0,
    };
    // Days, then hours, minutes and seconds of a count of `per_sec` units per second.
    let clock = |dt: &mut i64, ts: &mut DateTimeStruct, per_sec: i64| {
        set_days(extract(dt, per_sec.wrapping_mul(86_400)), ts);
        ts.hour = extract(dt, per_sec.wrapping_mul(3600));
        ts.min = extract(dt, per_sec.wrapping_mul(60));
        ts.sec = extract(dt, per_sec);
    };
    match unit {
        TimeUnit::Generic => {}
        TimeUnit::Year => ts.year = dt.wrapping_add(1970),
        TimeUnit::Month => {
            ts.year = extract(&mut dt, 12).wrapping_add(1970);
            ts.month = dt.wrapping_add(1);
        }
        TimeUnit::Week => set_days(dt.wrapping_mul(7), &mut ts),
        TimeUnit::Day => set_days(dt, &mut ts),
        TimeUnit::Hour => {
            set_days(extract(&mut dt, 24), &mut ts);
            ts.hour = dt;
        }
        TimeUnit::Minute => {
            set_days(extract(&mut dt, 1440), &mut ts);
            ts.hour = extract(&mut dt, 60);
            ts.min = dt;
        }
        TimeUnit::Second => {
            clock(&mut dt, &mut ts, 1);
        }
        TimeUnit::Milli => {
            clock(&mut dt, &mut ts, 1000);
            ts.us = dt.wrapping_mul(1000);
        }
        TimeUnit::Micro => {
            clock(&mut dt, &mut ts, 1_000_000);
            ts.us = dt;
        }
        TimeUnit::Nano => {
            clock(&mut dt, &mut ts, 1_000_000_000);
            ts.us = extract(&mut dt, 1000);
            ts.ps = dt.wrapping_mul(1000);
        }
        TimeUnit::Pico => {
            clock(&mut dt, &mut ts, 1_000_000_000_000);
            ts.us = extract(&mut dt, 1_000_000);
            ts.ps = dt;
        }
        TimeUnit::Femto | TimeUnit::Atto => sub_second(dt, unit, &mut ts),
    }
    ts
}

/// The femto- and attosecond cases, whose whole range is a few hours around the epoch.
fn sub_second(mut dt: i64, unit: TimeUnit, ts: &mut DateTimeStruct) {
    const FS_PER_SEC: i64 = 1_000_000_000_000_000;
    if unit == TimeUnit::Femto {
        ts.hour = extract(&mut dt, 3_600_000_000_000_000_000);
        if ts.hour < 0 {
            (ts.year, ts.month, ts.day) = (1969, 12, 31);
            ts.hour = ts.hour.wrapping_add(24);
        }
        ts.min = extract(&mut dt, 60_000_000_000_000_000);
        ts.sec = extract(&mut dt, FS_PER_SEC);
        ts.us = extract(&mut dt, 1_000_000_000);
        ts.ps = extract(&mut dt, 1000);
        ts.attos = dt.wrapping_mul(1000);
    } else {
        ts.sec = extract(&mut dt, 1_000_000_000_000_000_000);
        if ts.sec < 0 {
            (ts.year, ts.month, ts.day, ts.hour, ts.min) = (1969, 12, 31, 23, 59);
            ts.sec = ts.sec.wrapping_add(60);
        }
        ts.us = extract(&mut dt, 1_000_000_000_000);
        ts.ps = extract(&mut dt, 1_000_000);
        ts.attos = dt;
    }
}

/// `np.datetime_as_string(x, unit=<the dtype's unit>)` of a non-NaT value of `unit`.
pub(super) fn datetime_as_string(x: i64, unit: DateUnit) -> String {
    // The cast from [N unit] to [unit] multiplies, wrapping as NumPy's does.
    let dt = x.wrapping_mul(i64::from(unit.multiple));
    let ts = datetime_struct(dt, unit.unit);
    let rank = time_rank(unit.unit);
    let mut s = format!("{:04}", ts.year);
    let parts: [(u8, &str, i64, usize); 11] = [
        (1, "-", ts.month, 2),
        (2, "-", ts.day, 2),
        (3, "T", ts.hour, 2),
        (4, ":", ts.min, 2),
        (5, ":", ts.sec, 2),
        (6, ".", ts.us.wrapping_div(1000), 3),
        (7, "", ts.us.wrapping_rem(1000), 3),
        (8, "", ts.ps.wrapping_div(1000), 3),
        (9, "", ts.ps.wrapping_rem(1000), 3),
        (10, "", ts.attos.wrapping_div(1000), 3),
        (11, "", ts.attos.wrapping_rem(1000), 3),
    ];
    for (r, sep, v, w) in parts {
        if rank >= r {
            s.push_str(&format!("{sep}{v:0w$}"));
        }
    }
    s
}

/// How far down `make_iso_8601_datetime` writes a unit: 0 the year … 11 attoseconds
/// (weeks are written as days).
fn time_rank(unit: TimeUnit) -> u8 {
    match unit {
        TimeUnit::Generic | TimeUnit::Year => 0,
        TimeUnit::Month => 1,
        TimeUnit::Week | TimeUnit::Day => 2,
        TimeUnit::Hour => 3,
        TimeUnit::Minute => 4,
        TimeUnit::Second => 5,
        TimeUnit::Milli => 6,
        TimeUnit::Micro => 7,
        TimeUnit::Nano => 8,
        TimeUnit::Pico => 9,
        TimeUnit::Femto => 10,
        TimeUnit::Atto => 11,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes_follow_numpy() {
        let u = |unit, multiple| DateUnit { unit, multiple };
        assert_eq!(
            datetime_as_string(0, u(TimeUnit::Second, 1)),
            "1970-01-01T00:00:00"
        );
        assert_eq!(
            datetime_as_string(-1, u(TimeUnit::Nano, 1)),
            "1969-12-31T23:59:59.999999999"
        );
        assert_eq!(datetime_as_string(-1971, u(TimeUnit::Year, 1)), "-001");
        assert_eq!(
            datetime_as_string(i64::MAX, u(TimeUnit::Second, 1)),
            "292277026596-12-04T15:30:07"
        );
        assert_eq!(
            datetime_as_string(1 << 62, u(TimeUnit::Month, 2)),
            "-768614336404562681-05"
        );
        assert_eq!(datetime_as_string(1, u(TimeUnit::Week, 3)), "1970-01-22");
        assert_eq!(
            datetime_as_string(i64::MIN + 1, u(TimeUnit::Femto, 1)),
            "1969-12-31T21:26:16.627963145224193"
        );
        assert_eq!(
            datetime_as_string(-1, u(TimeUnit::Atto, 1)),
            "1969-12-31T23:59:59.999999999999999999"
        );
        assert_eq!(
            datetime_as_string(i64::MIN + 1, u(TimeUnit::Day, 1)),
            "25252734927768524-07-29"
        );
    }
}
