//! Dates, months and time classes.

use std::{fmt, str::FromStr};

/// A calendar date as found in PGN tags; unknown parts are zero (`1984.??.??`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Date {
    /// Year, 0 when unknown.
    pub year: u16,
    /// Month 1-12, 0 when unknown.
    pub month: u8,
    /// Day 1-31, 0 when unknown.
    pub day: u8,
}

impl Date {
    /// Parses a PGN date (`YYYY.MM.DD`, with `??` for unknown parts; `-` also accepted as
    /// separator). Returns `None` when not even the year is known.
    pub fn from_pgn(text: &str) -> Option<Date> {
        let mut parts = text.trim().split(['.', '-', '/']);
        let year = parts.next()?.parse::<u16>().ok().filter(|y| *y > 0)?;
        let month = parts
            .next()
            .and_then(|m| m.parse::<u8>().ok())
            .filter(|m| (1..=12).contains(m))
            .unwrap_or(0);
        let day = parts
            .next()
            .and_then(|d| d.parse::<u8>().ok())
            .filter(|d| (1..=31).contains(d) && month != 0)
            .unwrap_or(0);
        Some(Date { year, month, day })
    }

    /// `YYYYMMDD` as a number (unknown parts zero); 0 for no date. Orders like the date.
    pub fn to_u32(self) -> u32 {
        u32::from(self.year) * 10_000 + u32::from(self.month) * 100 + u32::from(self.day)
    }

    /// Inverse of [`Date::to_u32`]; `None` for 0.
    pub fn from_u32(v: u32) -> Option<Date> {
        if v == 0 {
            return None;
        }
        Some(Date {
            year: u16::try_from(v / 10_000).unwrap_or(u16::MAX),
            month: ((v / 100) % 100) as u8,
            day: (v % 100) as u8,
        })
    }

    /// The UTC date of a Unix time (seconds since 1970-01-01).
    pub fn from_unix(secs: i64) -> Option<Date> {
        let days = secs.div_euclid(86_400);
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Some(Date {
            year: u16::try_from(year).ok()?,
            month: u8::try_from(month).ok()?,
            day: u8::try_from(day).ok()?,
        })
    }

    /// Days from 1970-01-01 to this date (unknown month or day count as the first).
    pub fn to_unix_days(self) -> i64 {
        let (m, d) = (i64::from(self.month.max(1)), i64::from(self.day.max(1)));
        let y = i64::from(self.year) - i64::from(m <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// Today's date (UTC) from the system clock.
    pub fn today() -> Option<Date> {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs();
        Date::from_unix(i64::try_from(secs).ok()?)
    }

    /// The month of this date, when the month is known.
    pub fn month(self) -> Option<Month> {
        Month::new(self.year, self.month)
    }
}

/// Now (UTC) as a PGN date `YYYY.MM.DD` and a file stamp `YYYYMMDD-HHMMSS`; `None` when
/// the system clock is before 1970.
pub fn now_stamps() -> Option<(String, String)> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    let d = Date::from_unix(i64::try_from(secs).ok()?)?;
    let t = secs % 86_400;
    Some((
        format!("{:04}.{:02}.{:02}", d.year, d.month, d.day),
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            d.year,
            d.month,
            d.day,
            t / 3600,
            (t / 60) % 60,
            t % 60
        ),
    ))
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if self.month != 0 {
            write!(f, "-{:02}", self.month)?;
            if self.day != 0 {
                write!(f, "-{:02}", self.day)?;
            }
        }
        Ok(())
    }
}

/// A calendar month, stored as `year * 12 + (month - 1)` so months order and subtract.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Month(u16);

/// A month that could not be parsed from `YYYY-MM`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid month {0:?}: expected YYYY-MM, e.g. 2024-03")]
pub struct ParseMonthError(pub String);

impl Month {
    /// The month `month` (1-12) of `year` (1-5000).
    pub fn new(year: u16, month: u8) -> Option<Month> {
        if !(1..=12).contains(&month) || year == 0 || year > 5000 {
            return None;
        }
        Some(Month(year * 12 + u16::from(month) - 1))
    }

    /// The compact form used in store keys; 0 means "unknown month".
    pub fn to_u16(self) -> u16 {
        self.0
    }

    /// Inverse of [`Month::to_u16`]; `None` for the unknown month 0.
    pub fn from_u16(v: u16) -> Option<Month> {
        (v >= 12).then_some(Month(v))
    }

    /// The year.
    pub fn year(self) -> u16 {
        self.0 / 12
    }

    /// The month number, 1-12.
    pub fn month(self) -> u8 {
        (self.0 % 12) as u8 + 1
    }

    /// The first day of the month.
    pub fn first_day(self) -> Date {
        Date {
            year: self.year(),
            month: self.month(),
            day: 1,
        }
    }

    /// The month after this one.
    pub fn next(self) -> Month {
        Month(self.0 + 1)
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year(), self.month())
    }
}

impl FromStr for Month {
    type Err = ParseMonthError;

    fn from_str(s: &str) -> Result<Month, ParseMonthError> {
        let err = || ParseMonthError(s.to_string());
        let (y, m) = s.trim().split_once(['-', '.', '/']).ok_or_else(err)?;
        if y.len() != 4 || m.is_empty() || m.len() > 2 {
            return Err(err());
        }
        let year = y.parse::<u16>().map_err(|_| err())?;
        let month = m.parse::<u8>().map_err(|_| err())?;
        Month::new(year, month).ok_or_else(err)
    }
}

/// How fast a game was played, in the categories of Chess.com and lichess.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TimeClass {
    /// Time control unknown (typical for over-the-board collections).
    Unknown = 0,
    /// Under 3 minutes estimated (lichess ultrabullet included).
    Bullet = 1,
    /// Blitz.
    Blitz = 2,
    /// Rapid.
    Rapid = 3,
    /// Classical (lichess convention; Chess.com calls these rapid).
    Classical = 4,
    /// Correspondence / daily games (days per move).
    Daily = 5,
}

/// Whose definitions of time classes apply when reading a `TimeControl` tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Convention {
    /// Chess.com: estimated time (base + 40 x increment) < 180 s bullet, < 600 s blitz,
    /// otherwise rapid; `1/SECONDS` is daily.
    ChessCom,
    /// lichess (also used for other sources): < 180 s bullet, < 480 s blitz, < 1500 s rapid,
    /// otherwise classical; `-` is correspondence.
    Lichess,
}

/// A time class name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown time class {0:?}: expected bullet, blitz, rapid, classical or daily")]
pub struct ParseTimeClassError(pub String);

impl TimeClass {
    /// All time classes, in code order.
    pub const ALL: [TimeClass; 6] = [
        TimeClass::Unknown,
        TimeClass::Bullet,
        TimeClass::Blitz,
        TimeClass::Rapid,
        TimeClass::Classical,
        TimeClass::Daily,
    ];

    /// Lower-case name (`"blitz"`), as Chess.com's `time_class` field spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeClass::Unknown => "unknown",
            TimeClass::Bullet => "bullet",
            TimeClass::Blitz => "blitz",
            TimeClass::Rapid => "rapid",
            TimeClass::Classical => "classical",
            TimeClass::Daily => "daily",
        }
    }

    /// From the code used in store keys.
    pub fn from_code(code: u8) -> TimeClass {
        TimeClass::ALL
            .get(usize::from(code))
            .copied()
            .unwrap_or(TimeClass::Unknown)
    }

    /// The time class of an over-the-board game without a `TimeControl` tag, by its
    /// `Event`: rapid, blitz or bullet where the event says so (`Amber Rapidplay`, `World
    /// Blitz`, `lightning`, `armageddon`, `active`), unknown where it cannot be told
    /// (blindfold, simultaneous, exhibition, internet and online events), else classical:
    /// the standard of over-the-board chess.
    pub fn of_otb_event(event: &str) -> TimeClass {
        let e = event.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| e.contains(w));
        if has(&["bullet"]) {
            TimeClass::Bullet
        } else if has(&["blitz", "lightning", "armageddon"]) {
            TimeClass::Blitz
        } else if has(&["rapid", "active", "quickplay"]) {
            TimeClass::Rapid
        } else if has(&["blind", "simul", "exhib", "internet", "online", "corr"]) {
            TimeClass::Unknown
        } else {
            TimeClass::Classical
        }
    }

    /// Classifies a PGN `TimeControl` tag (`180`, `180+2`, `1/259200`, `40/7200:3600`, `-`).
    pub fn from_time_control(tag: &str, convention: Convention) -> TimeClass {
        let tag = tag.trim();
        if tag.is_empty() || tag == "?" {
            return TimeClass::Unknown;
        }
        if tag == "-" {
            return match convention {
                Convention::Lichess => TimeClass::Daily,
                Convention::ChessCom => TimeClass::Unknown,
            };
        }
        // Multi-stage controls: the first stage decides.
        let first = tag.split(':').next().unwrap_or(tag);
        if let Some((moves, secs)) = first.split_once('/') {
            let (Ok(moves), Ok(secs)) = (moves.parse::<u64>(), secs.parse::<u64>()) else {
                return TimeClass::Unknown;
            };
            // Chess.com daily: 1 move per N seconds (days). Otherwise N moves in S seconds.
            if moves == 1 && secs >= 86_400 {
                return TimeClass::Daily;
            }
            return Self::from_estimate(secs, convention);
        }
        let (base, inc) = match first.split_once('+') {
            Some((b, i)) => (b.parse::<u64>(), i.parse::<u64>()),
            None => (first.parse::<u64>(), Ok(0)),
        };
        match (base, inc) {
            (Ok(base), Ok(inc)) => Self::from_estimate(base + 40 * inc, convention),
            _ => TimeClass::Unknown,
        }
    }

    fn from_estimate(secs: u64, convention: Convention) -> TimeClass {
        match convention {
            Convention::ChessCom => match secs {
                0..180 => TimeClass::Bullet,
                180..600 => TimeClass::Blitz,
                _ => TimeClass::Rapid,
            },
            Convention::Lichess => match secs {
                0..180 => TimeClass::Bullet,
                180..480 => TimeClass::Blitz,
                480..1500 => TimeClass::Rapid,
                _ => TimeClass::Classical,
            },
        }
    }
}

impl fmt::Display for TimeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TimeClass {
    type Err = ParseTimeClassError;

    fn from_str(s: &str) -> Result<TimeClass, ParseTimeClassError> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.as_str() {
            "bullet" | "ultrabullet" => Ok(TimeClass::Bullet),
            "blitz" => Ok(TimeClass::Blitz),
            "rapid" => Ok(TimeClass::Rapid),
            "classical" | "standard" => Ok(TimeClass::Classical),
            "daily" | "correspondence" => Ok(TimeClass::Daily),
            "unknown" => Ok(TimeClass::Unknown),
            _ => Err(ParseTimeClassError(s.to_string())),
        }
    }
}

/// A duration as people write it: `1.2 s` under a minute, `3 min 20 s` under an hour,
/// `2 h 5 min` under a day, `2 d 4 h` beyond (whole units past the seconds, a zero
/// second unit left out: `3 min`, `2 d`).
pub fn duration_text(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "-".into();
    }
    if seconds < 59.95 {
        return format!("{seconds:.1} s");
    }
    let whole = seconds.round() as u64;
    let (big, small, names) = if whole < 3600 {
        (whole / 60, whole % 60, ["min", "s"])
    } else if whole < 86_400 {
        (whole / 3600, whole % 3600 / 60, ["h", "min"])
    } else {
        (whole / 86_400, whole % 86_400 / 3600, ["d", "h"])
    };
    if small == 0 {
        format!("{big} {}", names[0])
    } else {
        format!("{big} {} {small} {}", names[0], names[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_the_board_events_tell_the_time_class() {
        for (event, want) in [
            ("Wch", TimeClass::Classical),
            ("Linares", TimeClass::Classical),
            ("World Blitz", TimeClass::Blitz),
            ("Amber Rapidplay", TimeClass::Rapid),
            ("Roquebrune rapid", TimeClass::Rapid),
            ("Amber Blindfold", TimeClass::Unknown),
            ("Simul, 30b", TimeClass::Unknown),
            ("Internet Chess Club", TimeClass::Unknown),
            ("Armageddon", TimeClass::Blitz),
            ("bullet arena", TimeClass::Bullet),
        ] {
            assert_eq!(TimeClass::of_otb_event(event), want, "{event}");
        }
    }

    #[test]
    fn durations_read_as_people_write_them() {
        let cases = [
            (0.04, "0.0 s"),
            (1.23, "1.2 s"),
            (59.9, "59.9 s"),
            (59.96, "1 min"),
            (180.0, "3 min"),
            (200.4, "3 min 20 s"),
            (3_600.0, "1 h"),
            (7_500.0, "2 h 5 min"),
            (86_400.0 * 2.0, "2 d"),
            (86_400.0 * 2.0 + 4.0 * 3600.0 + 59.0, "2 d 4 h"),
            (f64::NAN, "-"),
        ];
        for (s, want) in cases {
            assert_eq!(duration_text(s), want, "{s}");
        }
    }

    #[test]
    fn dates() {
        assert_eq!(
            Date::from_pgn("2017.02.20"),
            Some(Date {
                year: 2017,
                month: 2,
                day: 20
            })
        );
        let partial = Date::from_pgn("1984.??.??").expect("year known");
        assert_eq!(partial.to_u32(), 19_840_000);
        assert_eq!(partial.month(), None);
        assert_eq!(Date::from_pgn("????.??.??"), None);
        let d = Date::from_pgn("2020.05.31").expect("date");
        assert_eq!(Date::from_u32(d.to_u32()), Some(d));
        assert_eq!(d.to_string(), "2020-05-31");
    }

    #[test]
    fn unix_dates() {
        let text = |s| Date::from_unix(s).map(|d| d.to_string());
        assert_eq!(text(0), Some("1970-01-01".into()));
        assert_eq!(text(1_391_648_083), Some("2014-02-06".into()));
        assert_eq!(text(951_782_400), Some("2000-02-29".into()));
        assert_eq!(text(1_798_675_200), Some("2026-12-31".into()));
    }

    #[test]
    fn unix_days_round_trip() {
        for secs in [
            0i64,
            951_782_400,
            1_391_648_083,
            1_798_675_200,
            4_102_444_800,
        ] {
            let d = Date::from_unix(secs).expect("date");
            assert_eq!(d.to_unix_days(), secs.div_euclid(86_400), "{d}");
        }
    }

    #[test]
    fn months() {
        let m: Month = "2024-03".parse().expect("month");
        assert_eq!((m.year(), m.month()), (2024, 3));
        assert_eq!(Month::from_u16(m.to_u16()), Some(m));
        assert_eq!(m.to_string(), "2024-03");
        assert!("2024-13".parse::<Month>().is_err());
        assert!("24-01".parse::<Month>().is_err());
        assert!("march".parse::<Month>().is_err());
        assert!(Month::new(2023, 12) < Month::new(2024, 1));
    }

    #[test]
    fn time_controls_chess_com() {
        use Convention::ChessCom as C;
        let tc = |t| TimeClass::from_time_control(t, C);
        assert_eq!(tc("60"), TimeClass::Bullet);
        assert_eq!(tc("120+1"), TimeClass::Bullet);
        assert_eq!(tc("180"), TimeClass::Blitz);
        assert_eq!(tc("180+2"), TimeClass::Blitz);
        assert_eq!(tc("300+5"), TimeClass::Blitz);
        assert_eq!(tc("600"), TimeClass::Rapid);
        assert_eq!(tc("1800"), TimeClass::Rapid);
        assert_eq!(tc("1/259200"), TimeClass::Daily);
        assert_eq!(tc(""), TimeClass::Unknown);
        assert_eq!(tc("abc"), TimeClass::Unknown);
    }

    #[test]
    fn time_controls_lichess() {
        use Convention::Lichess as L;
        let tc = |t| TimeClass::from_time_control(t, L);
        assert_eq!(tc("15+0"), TimeClass::Bullet);
        assert_eq!(tc("300+3"), TimeClass::Blitz);
        assert_eq!(tc("600+0"), TimeClass::Rapid);
        assert_eq!(tc("1800+0"), TimeClass::Classical);
        assert_eq!(tc("40/7200:3600"), TimeClass::Classical);
        assert_eq!(tc("-"), TimeClass::Daily);
    }

    #[test]
    fn names_round_trip() {
        for tc in TimeClass::ALL {
            assert_eq!(tc.as_str().parse::<TimeClass>(), Ok(tc));
            assert_eq!(TimeClass::from_code(tc as u8), tc);
        }
        assert!("fast".parse::<TimeClass>().is_err());
    }
}
