//! Loading jobs workloads with their Parquet job tables.

use std::path::Path;
use std::sync::Arc;

use schedlab_env::jobs::JobsWorkload;

pub fn load(path: &Path) -> anyhow::Result<Arc<JobsWorkload>> {
    Ok(Arc::new(JobsWorkload::load(
        path,
        &crate::traces::table::read_jobs_parquet,
    )?))
}
