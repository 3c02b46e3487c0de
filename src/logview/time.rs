//! Times in the decision log and on the command line: RFC 3339 timestamps,
//! plain dates and short durations (`90s`, `15m`, `2h`, `3d`, `1w`), all
//! turned into milliseconds since the Unix epoch (UTC). Hand-written because
//! guard needs only these three forms and no time zone database.

use std::time::Duration;

/// Unix day number (days since 1970-01-01) of a civil date (proleptic
/// Gregorian calendar); the inverse of [`crate::log::civil_from_days`].
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn number(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `YYYY-MM-DD` into its Unix day number.
pub fn parse_date(s: &str) -> Option<i64> {
    let mut parts = s.splitn(3, '-');
    let (y, m, d) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    if s.len() != 10 || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m as u32, d as u32))
}

/// Parses an RFC 3339 time (`2026-12-01T10:00:00Z`, with optional fraction
/// and a `Z` or `±HH:MM` offset) into milliseconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.len() < 20 {
        return None;
    }
    let (date, rest) = s.split_at(10);
    let days = parse_date(date)?;
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let (clock, zone) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => rest.split_at(i),
        None => return None,
    };
    let (hms, fraction) = match clock.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (clock, None),
    };
    let mut f = hms.split(':');
    let (h, mi, sec) = (number(f.next()?)?, number(f.next()?)?, number(f.next()?)?);
    if f.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let millis = match fraction {
        Some(fr) => {
            number(fr)?;
            let three: String = fr.chars().chain(std::iter::repeat('0')).take(3).collect();
            three.parse::<i64>().ok()?
        }
        None => 0,
    };
    let offset_secs = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let (oh, om) = zone[1..].split_once(':')?;
            let (oh, om) = (number(oh)?, number(om)?);
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
    };
    Some((days * 86_400 + h * 3600 + mi * 60 + sec - offset_secs) * 1000 + millis)
}

/// Parses a duration: a whole number and a unit, `s`, `m`, `h`, `d` or `w`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (examples: 90s, 15m, 2h, 3d, 1w)"))?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(format!("`{s}`: the unit must be one of s, m, h, d, w")),
    };
    n.checked_mul(secs)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("`{s}` is too long"))
}

/// Milliseconds since the epoch, now.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Parses a `--since` value: a date (midnight UTC), an RFC 3339 time, or a
/// duration back from `now_ms`. Returns milliseconds since the epoch.
pub fn parse_since(s: &str, now_ms: i64) -> Result<i64, String> {
    if let Some(days) = parse_date(s) {
        return Ok(days * 86_400_000);
    }
    if let Some(ms) = parse_rfc3339(s) {
        return Ok(ms);
    }
    match parse_duration(s) {
        Ok(d) => Ok(now_ms - d.as_millis() as i64),
        Err(_) => Err(format!("--since `{s}`: give a date (2026-12-01), an RFC 3339 time (2026-12-01T10:00:00Z) or a duration (2h, 3d)")),
    }
}

/// Formats milliseconds since the epoch as RFC 3339 UTC (seconds precision).
pub fn format_rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (y, m, d) = crate::log::civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_with_civil_from_days() {
        for days in [-1000, 0, 11_016, 20_789, 40_000] {
            let (y, m, d) = crate::log::civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(parse_date("2026-12-02"), Some(20_789));
        assert_eq!(parse_date("2026-13-02"), None);
        assert_eq!(parse_date("2026-1-02"), None);
    }

    #[test]
    fn rfc3339_with_fraction_and_offsets() {
        let base = 20_789 * 86_400_000;
        assert_eq!(parse_rfc3339("2026-12-02T00:00:00Z"), Some(base));
        assert_eq!(
            parse_rfc3339("2026-12-02T01:02:03.45Z"),
            Some(base + 3_723_450)
        );
        assert_eq!(parse_rfc3339("2026-12-02T02:00:00+02:00"), Some(base));
        assert_eq!(parse_rfc3339("2026-12-01T22:00:00-02:00"), Some(base));
        assert_eq!(parse_rfc3339("2026-12-02T25:00:00Z"), None);
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(format_rfc3339(base + 3_723_450), "2026-12-02T01:02:03Z");
    }

    #[test]
    fn since_takes_dates_times_and_durations() {
        let now = 20_789 * 86_400_000 + 5 * 3_600_000;
        assert_eq!(parse_since("2026-12-02", now), Ok(20_789 * 86_400_000));
        assert_eq!(parse_since("2h", now), Ok(now - 2 * 3_600_000));
        assert_eq!(parse_since("3d", now), Ok(now - 3 * 86_400_000));
        assert!(parse_since("2 hours", now).is_err());
        assert!(parse_duration("5y").is_err());
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
    }
}
