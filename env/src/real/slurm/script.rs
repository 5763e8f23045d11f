//! The batch script every job of a Slurm episode runs, and the layout file schedlab writes
//! before each release: the server's address on the first line, then one line per container,
//! `NODE INDEX`. The script starts one worker per container with `srun` on the node schedlab
//! chose, so a job whose containers span nodes runs on all of them.

use std::path::Path;

use crate::error::{EnvError, Result};

/// The script's text, starting workers from `binary`.
pub fn batch_script(binary: &Path) -> String {
    format!(
        "#!/bin/sh\n\
         # a schedlab job: one worker per container on the node schedlab chose\n\
         # (docs/real-execution.md); each ends when its server's connection closes\n\
         {{ read -r address\n\
         while read -r node index; do\n  \
           srun --nodes=1 --ntasks=1 --nodelist=\"$node\" --exact '{}' real-process --role worker --connect \"$address\" --index \"$index\" &\n\
         done\n\
         wait; }} < \"$1\"\n",
        binary.display()
    )
}

/// Writes `script` to `path`, executable.
pub fn write_script(path: &Path, script: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, script).map_err(|e| EnvError::io(path, e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| EnvError::io(path, e))
}

/// Writes a run's layout to `path`: the server's `address`, then container k's node.
pub fn write_layout(path: &Path, address: &str, nodes: &[String]) -> Result<()> {
    let mut text = format!("{address}\n");
    for (index, node) in nodes.iter().enumerate() {
        text.push_str(&format!("{node} {index}\n"));
    }
    schedlab_artifacts::write_atomic_with(path, |temporary| std::fs::write(temporary, &text))
        .map_err(|e| EnvError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_lists_the_address_then_a_node_per_container() {
        let dir = std::env::temp_dir().join(format!("schedlab-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job-0.layout");
        write_layout(&path, "10.0.0.1:5", &["node2".into(), "node1".into()]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "10.0.0.1:5\nnode2 0\nnode1 1\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
