//! Writing PGN (the reading is [`crate::pgn`]): tag pairs with their quotes escaped, and
//! movetext as a tree, the first child of each move the main line and the others
//! variations in parentheses, with comments, wrapped at 79 columns as the PGN standard
//! asks. The moves are given in SAN (from [`crate::notation::san`]).

/// A move of a tree of moves, in SAN, with what follows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNode {
    /// The move in SAN.
    pub san: String,
    /// A comment after it (`}` is left out: a PGN comment cannot hold one).
    pub comment: Option<String>,
    /// The moves after it: the first the main line, the others variations.
    pub children: Vec<MoveNode>,
}

impl MoveNode {
    /// The moves in the tree below and with this one.
    pub fn len(&self) -> usize {
        1 + self.children.iter().map(MoveNode::len).sum::<usize>()
    }

    /// Never: a node is a move.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// One PGN game: `tags` in order, then the tree `moves` from the start position (the
/// first the main line), then `result`.
pub fn game(tags: &[(&str, String)], moves: &[MoveNode], result: &str) -> String {
    let mut out = String::new();
    for (k, v) in tags {
        let v = v.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    out.push('\n');
    let mut words = Vec::new();
    if !moves.is_empty() {
        alternatives(&mut words, &moves.iter().collect::<Vec<_>>(), 0, false);
    }
    words.push(result.to_string());
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// Writes `alts` (moves of one position: the first the main line) at `ply` (0: White's
/// first move); `numbered` when Black's move needs its number (after a comment or a
/// variation, and at the start of one).
fn alternatives(words: &mut Vec<String>, alts: &[&MoveNode], ply: usize, numbered: bool) {
    let Some((main, others)) = alts.split_first() else {
        return;
    };
    let number = ply / 2 + 1;
    let mv = |node: &MoveNode, numbered: bool| -> String {
        if ply.is_multiple_of(2) {
            format!("{number}. {}", node.san)
        } else if numbered {
            format!("{number}... {}", node.san)
        } else {
            node.san.clone()
        }
    };
    // A comment may hold spaces: its words wrap like the moves', so it is pushed whole
    // (one word per piece of text would split "{" from its text).
    let push = |words: &mut Vec<String>, node: &MoveNode, numbered: bool| {
        words.push(mv(node, numbered));
        if let Some(c) = &node.comment {
            words.extend(
                format!("{{{}}}", c.replace('}', ""))
                    .split_whitespace()
                    .map(str::to_string),
            );
        }
    };
    push(words, main, numbered);
    for other in others {
        let start = words.len();
        push(words, other, true);
        let after: Vec<&MoveNode> = other.children.iter().collect();
        alternatives(words, &after, ply + 1, other.comment.is_some());
        words[start].insert(0, '(');
        if let Some(last) = words.last_mut() {
            last.push(')');
        }
    }
    let next: Vec<&MoveNode> = main.children.iter().collect();
    alternatives(
        words,
        &next,
        ply + 1,
        main.comment.is_some() || !others.is_empty(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(san: &str, children: Vec<MoveNode>) -> MoveNode {
        MoveNode {
            san: san.into(),
            comment: None,
            children,
        }
    }

    #[test]
    fn variations_are_parenthesised_and_numbered_as_the_standard_writes_them() {
        let tree = vec![
            node(
                "e4",
                vec![
                    node("e5", vec![node("Nf3", vec![])]),
                    node("c5", vec![node("Nc3", vec![])]),
                ],
            ),
            MoveNode {
                comment: Some("rare } here".into()),
                ..node("d4", vec![node("d5", vec![])])
            },
        ];
        let text = game(&[("Event", "a \"b\"".into())], &tree, "*");
        assert_eq!(
            text,
            "[Event \"a \\\"b\\\"\"]\n\n1. e4 (1. d4 {rare here} 1... d5) 1... e5 (1... c5 2. Nc3) 2. Nf3 *\n\n"
        );
        assert_eq!(tree[0].len(), 5);
    }

    #[test]
    fn long_movetext_wraps_at_79_columns() {
        let mut line = node("Nf3", vec![]);
        for i in 0..60 {
            line = node(if i % 2 == 0 { "Ng1" } else { "Nf3" }, vec![line]);
        }
        let text = game(&[], &[line], "*");
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        assert!(text.lines().count() > 3);
    }
}
