//! EXPERIMENTS.md's sections in document order, and the document assembled from the sections a
//! run reproduced and the text the others already have.

use std::path::Path;

/// The sections in document order.
pub(super) const SECTIONS: [&str; 13] = [
    "tuning",
    "fig2",
    "table1",
    "table2",
    "dag",
    "network",
    "communication",
    "conserving",
    "learned",
    "heterogeneity",
    "fidelity",
    "learners",
    "leaderboard",
];

/// Every section in document order: those `reproduced` by this run from their files in `out`;
/// the others keep their block of the `previous` document, or where it has none the file an
/// earlier run left in `out`. A section file left by an older run (other figure paths, older
/// code) thus never replaces the document's newer text.
pub(super) fn sections_text(previous: &str, out: &Path, reproduced: &[&str]) -> String {
    let cached = |section: &str| std::fs::read_to_string(out.join(format!("{section}.md"))).ok();
    SECTIONS
        .iter()
        .map(|&section| {
            let block = previous_block(previous, section);
            if reproduced.contains(&section) || block.is_empty() {
                cached(section).unwrap_or(block)
            } else {
                block
            }
        })
        .collect()
}

/// The block of `doc` from the heading of `section` (`## Title (section)`) to the next `## `
/// heading; empty when the document has none.
fn previous_block(doc: &str, section: &str) -> String {
    let heading = |line: &str| line.starts_with("## ");
    let mut offset = 0;
    let mut start = None;
    for line in doc.split_inclusive('\n') {
        let title = line.trim_end();
        match start {
            None if heading(title) && title.ends_with(&format!("({section})")) => {
                start = Some(offset)
            }
            Some(s) if heading(title) => return doc[s..offset].to_owned(),
            _ => {}
        }
        offset += line.len();
    }
    start.map_or(String::new(), |s| doc[s..].to_owned())
}

#[cfg(test)]
mod tests {
    use super::{previous_block, sections_text};

    #[test]
    fn only_reproduced_sections_replace_the_documents_text() {
        let out = tempfile::tempdir().unwrap();
        for (section, text) in [
            ("fig2", "## Convergence (fig2)\n\nstale file\n"),
            ("table2", "## End to end (table2)\n\nfresh\n"),
            ("dag", "## DAG (dag)\n\nonly in the folder\n"),
        ] {
            std::fs::write(out.path().join(format!("{section}.md")), text).unwrap();
        }
        let doc =
            "# Experiments\n\n## Convergence (fig2)\n\ndocument\n## End to end (table2)\n\nold\n";
        assert_eq!(
            sections_text(doc, out.path(), &["table2"]),
            "## Convergence (fig2)\n\ndocument\n## End to end (table2)\n\nfresh\n## DAG (dag)\n\nonly in the folder\n"
        );
    }

    #[test]
    fn a_section_not_reproduced_keeps_its_block_of_the_document() {
        let doc = "# Experiments\n\nintro\n\n## Convergence (fig2)\n\nrows\n### sub\n\n## End to end (table2)\n\nmore\n";
        assert_eq!(
            previous_block(doc, "fig2"),
            "## Convergence (fig2)\n\nrows\n### sub\n\n"
        );
        assert_eq!(
            previous_block(doc, "table2"),
            "## End to end (table2)\n\nmore\n"
        );
        assert_eq!(previous_block(doc, "dag"), "");
    }
}
