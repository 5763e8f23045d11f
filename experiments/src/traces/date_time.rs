//! Wall-clock date-times (UTC) as seconds since 1970 and back, for traces that log them
//! (Philly) and the `--from/--to` bounds given as dates.

/// `YYYY-MM-DD HH:MM:SS` (or just the date) as seconds since 1970-01-01, UTC.
pub fn epoch_seconds(text: &str) -> Option<i64> {
    let (date, time) = text
        .trim()
        .split_once(' ')
        .unwrap_or((text.trim(), "00:00:00"));
    let d: Vec<i64> = date
        .split('-')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let t: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let ([y, m, day], [hh, mm, ss]) =
        (<[i64; 3]>::try_from(d).ok()?, <[i64; 3]>::try_from(t).ok()?);
    let valid = (1..=12).contains(&m)
        && (1..=31).contains(&day)
        && (0..24).contains(&hh)
        && (0..60).contains(&mm)
        && (0..=60).contains(&ss);
    valid.then(|| days_from_civil(y, m, day) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `epoch_seconds`'s inverse: `YYYY-MM-DD HH:MM:SS` (H. Hinnant's `civil_from_days`).
pub fn date_time(epoch: i64) -> String {
    let (days, secs) = (epoch.div_euclid(86_400), epoch.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_seconds_from_the_unix_epoch() {
        assert_eq!(epoch_seconds("1970-01-01 00:00:00"), Some(0));
        assert_eq!(epoch_seconds("2017-10-09 07:01:55"), Some(1_507_532_515));
        for text in [
            "1970-01-01 00:00:00",
            "2017-10-09 07:01:55",
            "2000-02-29 23:59:59",
        ] {
            assert_eq!(date_time(epoch_seconds(text).unwrap()), text);
        }
        assert_eq!(epoch_seconds("2000-03-01"), Some(951_868_800));
        assert_eq!(epoch_seconds("2017-13-01 00:00:00"), None);
        assert_eq!(epoch_seconds("yesterday"), None);
    }
}
