//! The deck: a player's cards joined with what the store keeps of them. A card made for
//! the first time gets a fresh record (due at once, stored with its first answer); a
//! record whose card is no longer made (its position left the repertoire) is retired, its
//! history kept, and comes back with it if the card is made again.

use std::collections::HashMap;

use mirror_core::PositionKey;
use mirror_store::{DrillRecord, Drills, GraphRead};
use serde::Serialize;
use shakmaty::Color;

use crate::{Card, CardOptions, Result, cards};

/// A card and its record.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The card.
    pub card: Card,
    /// What the store keeps of it.
    pub record: DrillRecord,
}

impl Entry {
    /// Whether the card was never answered.
    pub fn is_new(&self) -> bool {
        self.record.reviews == 0
    }

    /// Whether the card is due at `now` (a new card is not "due": it is new).
    pub fn is_due(&self, now: i64) -> bool {
        !self.is_new() && self.record.due <= now
    }
}

/// Cards by state, for one colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DueCounts {
    /// Answered before and due now.
    pub due: usize,
    /// Never answered.
    pub new: usize,
    /// Answered and not due yet.
    pub later: usize,
    /// Records whose card is no longer made (kept for their history).
    pub retired: usize,
}

/// A player's cards with their records, and the retired records.
#[derive(Clone, Debug, PartialEq)]
pub struct Deck {
    /// The player.
    pub player: String,
    /// The cards, in the order [`cards`] makes them.
    pub entries: Vec<Entry>,
    /// Records of the colours drawn whose card is no longer made.
    pub retired: Vec<DrillRecord>,
}

impl Deck {
    /// The deck of `player` with `opts`: the cards made now, each with its stored record
    /// (or a fresh one). Retirements and returns are stored at once (only for the colours
    /// `opts` covers), so that the store says which records have a card.
    pub fn build<S: GraphRead + Drills + Sync + ?Sized>(
        store: &S,
        player: &str,
        opts: &CardOptions,
    ) -> Result<Deck> {
        let made = cards(store, player, opts)?;
        let (deck, changed) =
            Deck::assemble(player, made, store.drill_records(player)?, opts.color);
        store.put_drill_records(player, &changed)?;
        Ok(deck)
    }

    /// The deck of `player` from the cards `made` and the stored `records`, without
    /// writing: each card with its record (or a fresh one), and the records of the colours
    /// `scope` covers (both when `None`) that have no card, retired. Also returns the
    /// records whose retired mark changed (to store).
    pub fn assemble(
        player: &str,
        made: Vec<Card>,
        records: Vec<DrillRecord>,
        scope: Option<Color>,
    ) -> (Deck, Vec<DrillRecord>) {
        let mut stored: HashMap<(PositionKey, bool), DrillRecord> = records
            .into_iter()
            .map(|r| ((r.key, r.color == Color::Black), r))
            .collect();
        let mut changed = Vec::new();
        let mut entries = Vec::with_capacity(made.len());
        for card in made {
            let record = match stored.remove(&(card.key, card.color == Color::Black)) {
                Some(mut r) => {
                    if r.retired {
                        r.retired = false;
                        changed.push(r.clone());
                    }
                    r
                }
                None => DrillRecord::new(card.key, card.color),
            };
            entries.push(Entry { card, record });
        }
        let covers = |c: Color| scope.is_none_or(|o| o == c);
        let mut retired = Vec::new();
        for mut r in stored.into_values() {
            if !covers(r.color) {
                continue;
            }
            if !r.retired {
                r.retired = true;
                changed.push(r.clone());
            }
            retired.push(r);
        }
        retired.sort_by_key(|r| (r.key, r.color == Color::Black));
        (
            Deck {
                player: player.to_string(),
                entries,
                retired,
            },
            changed,
        )
    }

    /// The entries a session asks at `now`: the due ones (the longest overdue first), then
    /// up to `new` new ones in the deck's order.
    pub fn queue(&self, now: i64, new: usize) -> Vec<usize> {
        let mut due: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].is_due(now))
            .collect();
        due.sort_by_key(|&i| self.entries[i].record.due);
        due.extend(
            (0..self.entries.len())
                .filter(|&i| self.entries[i].is_new())
                .take(new),
        );
        due
    }

    /// The counts of `color` at `now`.
    pub fn counts(&self, color: Color, now: i64) -> DueCounts {
        let mut c = DueCounts::default();
        for e in self.entries.iter().filter(|e| e.card.color == color) {
            if e.is_new() {
                c.new += 1;
            } else if e.is_due(now) {
                c.due += 1;
            } else {
                c.later += 1;
            }
        }
        c.retired = self.retired.iter().filter(|r| r.color == color).count();
        c
    }

    /// The entry of the card at `key` with `color`, if any.
    pub fn find(&self, key: PositionKey, color: Color) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.card.key == key && e.card.color == color)
    }
}

/// A card as listed: the card, and its schedule.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    /// The card.
    #[serde(flatten)]
    pub card: Card,
    /// Never answered.
    pub new: bool,
    /// Due at the time of the listing.
    pub due_now: bool,
    /// When it is due (seconds since the Unix epoch; 0 for a new card).
    pub due: i64,
    /// The day it is due (UTC, `YYYY-MM-DD`), for an answered card.
    pub due_date: Option<String>,
    /// Answers given.
    pub reviews: u32,
    /// Of them, wrong after the card was learnt.
    pub lapses: u32,
}

/// The deck as listed: the counts per colour and every card.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// The player.
    pub player: String,
    /// The counts of the White cards.
    pub white: DueCounts,
    /// The counts of the Black cards.
    pub black: DueCounts,
    /// The cards, in the deck's order.
    pub cards: Vec<Listed>,
}

impl Deck {
    /// The deck as listed at `now`.
    pub fn listing(&self, now: i64) -> Listing {
        self.listing_of(now, 0..self.entries.len())
    }

    /// The entries `which` as listed at `now`, with the deck's counts.
    pub fn listing_of(&self, now: i64, which: impl IntoIterator<Item = usize>) -> Listing {
        Listing {
            player: self.player.clone(),
            white: self.counts(Color::White, now),
            black: self.counts(Color::Black, now),
            cards: which
                .into_iter()
                .filter_map(|i| self.entries.get(i))
                .map(|e| Listed {
                    card: e.card.clone(),
                    new: e.is_new(),
                    due_now: e.is_due(now),
                    due: e.record.due,
                    due_date: (!e.is_new())
                        .then(|| mirror_core::time::Date::from_unix(e.record.due))
                        .flatten()
                        .map(|d| d.to_string()),
                    reviews: e.record.reviews,
                    lapses: e.record.lapses,
                })
                .collect(),
        }
    }
}
