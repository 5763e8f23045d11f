//! `schedlab policies`: every scheduler per kind of workload, with its options, from the
//! registry's table.

use schedlab_agents::EnvKind;
use schedlab_agents::registry::{names, row};

pub fn run() -> anyhow::Result<()> {
    print!("{}", listing());
    Ok(())
}

/// The listing `schedlab policies` prints.
pub fn listing() -> String {
    let mut text = String::new();
    for kind in EnvKind::ALL {
        text += &format!("{} workloads:\n", kind.name());
        let mut lines = Vec::new();
        for name in names(kind) {
            let row = row(name, kind).expect("listed names have rows");
            lines.push(vec![format!("  {name}"), row.help.to_owned()]);
            for option in row.options {
                let default = if option.default.is_empty() {
                    "unset".to_owned()
                } else {
                    option.default.to_owned()
                };
                lines.push(vec![
                    format!("    {}={}", option.key, option.kind),
                    format!("{} (default {default})", option.help),
                ]);
            }
        }
        let left = lines
            .iter()
            .map(|l| l[0].chars().count())
            .max()
            .unwrap_or(0);
        for line in lines {
            text += &format!("{:<left$}  {}\n", line[0], line[1]);
        }
        text.push('\n');
    }
    text += "A run folder of `schedlab train` plays its trained agent on workloads of its kind.\n";
    let mut shipped: Vec<String> =
        std::fs::read_dir(schedlab_experiments::paths::shipped_policies())
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.path().join("manifest.json").is_file())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
    shipped.sort();
    if !shipped.is_empty() {
        text += &format!(
            "Trained policies shipped in data/policies/, usable by name: {}\n",
            shipped.join(", ")
        );
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_listing_has_every_scheduler_of_each_kind_with_its_options() {
        let text = super::listing();
        let jobs = text.find("jobs workloads:").unwrap();
        let single = text.find("single-job workloads:").unwrap();
        assert!(single < jobs);
        assert!(text[single..jobs].contains("  greedy"));
        assert!(!text[single..jobs].contains("  fifo"));
        assert!(text[jobs..].contains("  fifo"));
        assert!(text[jobs..].contains("    backfill=true|false"));
        assert!(text[single..jobs].contains("    solver=exact|heuristic"));
        assert!(text[single..jobs].contains("(default lstm)"));
    }
}
