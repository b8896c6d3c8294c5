//! A profile's ingest: which sources feed it (the accounts and files given, else the
//! accounts recorded with the profile by earlier ingests, else the Chess.com account of its
//! name), each read in turn into the store, the accounts that answered recorded with the
//! profile. Returns what each source did; the caller shows progress
//! ([`ProfileEvents`]) and prints the outcome.

use mirror_core::{GameSource, time::Month};
use mirror_online::{chesscom::ClientConfig, lichess::LichessConfig};
use mirror_store::{Account, GraphStore, StoreError};

use crate::{
    IngestError, IngestOptions, Progress, Source, Summary,
    chesscom::{ChesscomOptions, ChesscomProgress, ChesscomSummary, ingest_chesscom},
    lichess::{LichessOptions, LichessSummary, ingest_lichess},
};

/// One source of a profile's games, in the order they are ingested.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Feed {
    /// A Chess.com account.
    Chesscom(String),
    /// A lichess account.
    Lichess(String),
    /// The PGN inputs.
    Pgn,
}

impl std::fmt::Display for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Feed::Chesscom(u) => write!(f, "Chess.com {u}"),
            Feed::Lichess(u) => write!(f, "lichess {u}"),
            Feed::Pgn => f.write_str("PGN files"),
        }
    }
}

impl Feed {
    /// The account a feed reads, recorded with the profile once read.
    pub fn account(&self) -> Option<Account> {
        match self {
            Feed::Chesscom(u) => Some(Account {
                source: GameSource::Chesscom,
                name: u.clone(),
            }),
            Feed::Lichess(u) => Some(Account {
                source: GameSource::Lichess,
                name: u.clone(),
            }),
            Feed::Pgn => None,
        }
    }
}

/// What a profile's ingest is asked.
#[derive(Clone, Debug, Default)]
pub struct ProfileRequest {
    /// The profile; without it, the one account given names it.
    pub user: Option<String>,
    /// Chess.com accounts.
    pub chesscom: Vec<String>,
    /// lichess accounts.
    pub lichess: Vec<String>,
    /// Other spellings of the player's name in PGN files (recorded with the profile).
    pub aliases: Vec<String>,
    /// PGN inputs, expanded ([`crate::expand`]).
    pub pgn: Vec<Source>,
    /// Chess.com / lichess: the first month to fetch.
    pub since: Option<Month>,
    /// Chess.com / lichess: the last month to fetch.
    pub until: Option<Month>,
}

/// Where and how this machine fetches and writes.
#[derive(Clone, Debug)]
pub struct FetchSettings {
    /// The Chess.com client (address, contact, retries).
    pub chesscom: ClientConfig,
    /// The lichess client (address, token, contact, retries).
    pub lichess: LichessConfig,
    /// Games per write transaction.
    pub batch_size: usize,
    /// This month (Chess.com's archives are asked up to it).
    pub now: Month,
    /// Now, in Unix milliseconds (lichess's export is asked up to it).
    pub now_ms: i64,
}

/// What a profile's ingest tells as it goes: each source starting and ending, and the
/// progress of the source being read ([`Progress`] for games, [`ChesscomProgress`] for
/// Chess.com's months).
pub trait ProfileEvents: Progress + ChesscomProgress {
    /// The sources, known before the first starts; `recorded`: the profile's recorded
    /// accounts (none was given).
    fn sources(&mut self, _feeds: &[Feed], _recorded: bool) {}
    /// Source `feed` (number `index` of `total`) starts.
    fn feed(&mut self, _feed: &Feed, _index: usize, _total: usize) {}
    /// The source that started last has ended, with what it did (`None`: it failed, and
    /// the ingest stops with the error).
    fn feed_done(&mut self, _feed: &Feed, _result: Option<&FeedResult>) {}
}

/// What one source did.
#[derive(Debug)]
pub enum FeedResult {
    /// Chess.com: the months and the games.
    Chesscom(ChesscomSummary),
    /// lichess: the export's window and the games.
    Lichess(LichessSummary),
    /// The PGN inputs.
    Pgn(Summary),
}

impl FeedResult {
    /// The games' counts.
    pub fn games(&self) -> &Summary {
        match self {
            FeedResult::Chesscom(s) => &s.games,
            FeedResult::Lichess(s) => &s.games,
            FeedResult::Pgn(s) => s,
        }
    }

    /// Whether the source was read to its end (no failed month, no broken export, no
    /// unreadable input).
    pub fn ok(&self) -> bool {
        match self {
            FeedResult::Chesscom(s) => s.months.failed.is_empty(),
            FeedResult::Lichess(s) => !s.games.has_errors(),
            FeedResult::Pgn(s) => !s.has_errors(),
        }
    }
}

/// What a profile's ingest did.
#[derive(Debug)]
pub struct ProfileOutcome {
    /// The profile.
    pub profile: String,
    /// The sources read because the profile had them recorded (none were given).
    pub recorded: Option<Vec<Feed>>,
    /// Each source, in order, with what it did.
    pub feeds: Vec<(Feed, FeedResult)>,
}

impl ProfileOutcome {
    /// Whether every source was read to its end.
    pub fn ok(&self) -> bool {
        self.feeds.iter().all(|(_, r)| r.ok())
    }
}

/// Why a profile's ingest did not run.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// Several accounts and no profile to put them in.
    #[error("pass --user NAME: the profile these accounts feed")]
    NoProfile,
    /// The profile has no recorded account and its name cannot be a Chess.com account.
    #[error("{why}; to ingest PGN files pass --pgn, for a lichess account --lichess USER")]
    NoSource {
        /// Why the name is not a Chess.com account (in the message: it is the reason).
        why: mirror_online::FetchError,
    },
    /// No game of the PGN inputs has the player as White or Black.
    #[error(
        "no game in the input has {} as White or Black{}",
        names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(" or "),
        if frequent.is_empty() {
            String::new()
        } else {
            format!(
                "; the most frequent names are: {} (is the player one of them, under another spelling? add it as an alias)",
                frequent
                    .iter()
                    .map(|(n, c)| format!("{n} ({c})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    )]
    NoGameOfPlayer {
        /// The names looked for.
        names: Vec<String>,
        /// The most frequent names in the input, with their games.
        frequent: Vec<(String, u64)>,
    },
    /// A source could not be read at all.
    #[error("{what}")]
    Feed {
        /// The source, e.g. "ingest Chess.com games of hikaru".
        what: String,
        /// Why.
        #[source]
        source: IngestError,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An account name is not valid for its site.
    #[error(transparent)]
    Online(#[from] mirror_online::FetchError),
}

impl ProfileRequest {
    /// The profile's name, every account checked: the user, or the one account given.
    pub fn profile(&self) -> Result<String, ProfileError> {
        for u in &self.chesscom {
            mirror_online::chesscom::validate_username(u)?;
        }
        for u in &self.lichess {
            mirror_online::lichess::validate_username(u)?;
        }
        let profile = match (
            &self.user,
            self.lichess.as_slice(),
            self.chesscom.as_slice(),
        ) {
            (Some(u), _, _) => u.clone(),
            (None, [one], []) | (None, [], [one]) => one.clone(),
            _ => return Err(ProfileError::NoProfile),
        };
        mirror_store::player_key(&profile)?;
        Ok(profile)
    }

    /// The sources given, in order: Chess.com accounts, lichess accounts, the PGN inputs.
    pub fn feeds(&self) -> Vec<Feed> {
        let mut feeds: Vec<Feed> = self.chesscom.iter().cloned().map(Feed::Chesscom).collect();
        feeds.extend(self.lichess.iter().cloned().map(Feed::Lichess));
        if !self.pgn.is_empty() {
            feeds.push(Feed::Pgn);
        }
        feeds
    }

    /// With no source given: `Ok` when the profile's name can be a Chess.com account (read
    /// when it has no recorded account), else why not (then only recorded accounts can
    /// feed it: see [`has_online_account`]).
    pub fn chesscom_fallback(&self, profile: &str) -> Result<(), ProfileError> {
        mirror_online::chesscom::validate_username(profile)
            .map(|_| ())
            .map_err(|why| ProfileError::NoSource { why })
    }
}

/// Whether `profile` has a Chess.com or lichess account recorded.
pub fn has_online_account<S: GraphStore>(store: &S, profile: &str) -> Result<bool, StoreError> {
    Ok(store
        .accounts(profile)?
        .iter()
        .any(|a| a.source != GameSource::Otb))
}

/// Ingests every source of `request` into `store` (see the module's documentation).
pub fn ingest_profile<S: GraphStore + Sync>(
    store: &S,
    request: &ProfileRequest,
    settings: &FetchSettings,
    events: &mut dyn ProfileEvents,
) -> Result<ProfileOutcome, ProfileError> {
    let profile = request.profile()?;
    let mut feeds = request.feeds();
    let recorded_accounts = store.accounts(&profile)?;
    let mut recorded = None;
    if feeds.is_empty() {
        feeds = recorded_accounts
            .iter()
            .filter_map(|a| match a.source {
                GameSource::Chesscom => Some(Feed::Chesscom(a.name.clone())),
                GameSource::Lichess => Some(Feed::Lichess(a.name.clone())),
                GameSource::Otb => None,
            })
            .collect();
        if feeds.is_empty() {
            request.chesscom_fallback(&profile)?;
            feeds.push(Feed::Chesscom(profile.clone()));
        } else {
            recorded = Some(feeds.clone());
        }
    }
    events.sources(&feeds, recorded.is_some());
    let mut out = Vec::new();
    let total = feeds.len();
    for (index, feed) in feeds.iter().enumerate() {
        events.feed(feed, index, total);
        let result = read_feed(
            store,
            request,
            settings,
            &profile,
            &recorded_accounts,
            feed,
            events,
        )?;
        events.feed_done(feed, result.as_ref().ok());
        let result = result.map_err(|source| ProfileError::Feed {
            what: match feed {
                Feed::Chesscom(u) => format!("ingest Chess.com games of {u}"),
                Feed::Lichess(u) => format!("ingest lichess games of {u}"),
                Feed::Pgn => "ingest the PGN inputs".to_string(),
            },
            source,
        })?;
        // An account that answered, and the aliases that found games, join the profile.
        let mut accounts: Vec<Account> = feed.account().into_iter().collect();
        if *feed == Feed::Pgn {
            accounts.extend(request.aliases.iter().map(|a| Account {
                source: GameSource::Otb,
                name: a.clone(),
            }));
        }
        for account in &accounts {
            store.add_account(&profile, account)?;
        }
        out.push((feed.clone(), result));
    }
    Ok(ProfileOutcome {
        profile,
        recorded,
        feeds: out,
    })
}

/// Reads one source of the profile into the store. `Ok(Err(_))`: the source could not be
/// read (the caller reports it); `Err(_)`: the ingest stops here (no game of the player).
fn read_feed<S: GraphStore + Sync>(
    store: &S,
    request: &ProfileRequest,
    settings: &FetchSettings,
    profile: &str,
    recorded_accounts: &[Account],
    feed: &Feed,
    events: &mut dyn ProfileEvents,
) -> Result<Result<FeedResult, IngestError>, ProfileError> {
    Ok(match feed {
        Feed::Chesscom(user) => {
            let opts = ChesscomOptions {
                player: profile.to_string(),
                user: user.clone(),
                client: settings.chesscom.clone(),
                since: request.since,
                until: request.until,
                now: settings.now,
                batch_size: settings.batch_size,
            };
            ingest_chesscom(store, &opts, events).map(FeedResult::Chesscom)
        }
        Feed::Lichess(user) => {
            let opts = LichessOptions {
                player: profile.to_string(),
                user: user.clone(),
                config: settings.lichess.clone(),
                since: request.since,
                until: request.until,
                now_ms: settings.now_ms,
                batch_size: settings.batch_size,
            };
            ingest_lichess(store, &opts, events).map(FeedResult::Lichess)
        }
        Feed::Pgn => {
            let mut names = vec![profile.to_string()];
            names.extend(request.aliases.iter().cloned());
            names.extend(request.chesscom.iter().cloned());
            names.extend(request.lichess.iter().cloned());
            names.extend(recorded_accounts.iter().map(|a| a.name.clone()));
            let mut seen = std::collections::HashSet::new();
            names.retain(|n| seen.insert(n.to_ascii_lowercase()));
            let opts = IngestOptions {
                player: profile.to_string(),
                names: names.clone(),
                batch_size: settings.batch_size,
            };
            match crate::ingest(store, &request.pgn, &opts, events) {
                Ok(s) if s.ingested + s.duplicates == 0 => {
                    let frequent = s.frequent_names.clone();
                    events.feed_done(feed, Some(&FeedResult::Pgn(s)));
                    return Err(ProfileError::NoGameOfPlayer { names, frequent });
                }
                other => other.map(FeedResult::Pgn),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_is_the_user_or_the_one_account() {
        let ask = |user: Option<&str>, chesscom: &[&str], lichess: &[&str]| ProfileRequest {
            user: user.map(String::from),
            chesscom: chesscom.iter().map(|s| s.to_string()).collect(),
            lichess: lichess.iter().map(|s| s.to_string()).collect(),
            ..ProfileRequest::default()
        };
        assert_eq!(
            ask(Some("Me"), &["a1b"], &["c2d"])
                .profile()
                .ok()
                .as_deref(),
            Some("Me")
        );
        assert_eq!(
            ask(None, &["hikaru"], &[]).profile().ok().as_deref(),
            Some("hikaru")
        );
        assert_eq!(
            ask(None, &[], &["DrNykterstein"]).profile().ok().as_deref(),
            Some("DrNykterstein")
        );
        assert!(matches!(
            ask(None, &["abc"], &["def"]).profile(),
            Err(ProfileError::NoProfile)
        ));
        assert!(matches!(
            ask(Some("x"), &["no/such"], &[]).profile(),
            Err(ProfileError::Online(_))
        ));
        let r = ask(Some("Me"), &["abc"], &["def"]);
        assert_eq!(
            r.feeds(),
            [Feed::Chesscom("abc".into()), Feed::Lichess("def".into())]
        );
        assert!(
            r.chesscom_fallback("Magnus Carlsen").is_err(),
            "a space is no Chess.com name"
        );
        assert!(r.chesscom_fallback("hikaru").is_ok());
    }
}
