//! Undirected communication graphs of computing centres with symmetric weights: generators
//! (ring, random geometric, Erdős-Rényi), Metropolis and unit Laplacian weights, and the
//! spectrum a step size is chosen from.

use nalgebra::DMatrix;
use rand::RngExt;
use rand::rngs::StdRng;

/// How edges are weighted; both are symmetric, so a weighted difference of neighbours'
/// values sums to zero over the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weights {
    /// `w_ij = 1 / (1 + max(d_i, d_j))` (Xiao and Boyd's Metropolis-Hastings weights).
    Metropolis,
    /// `w_ij = 1`.
    Unit,
}

/// An undirected graph on `n` nodes with a weight per edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    n: usize,
    /// Each edge once, `i < j`.
    edges: Vec<(usize, usize, f64)>,
    /// [`Self::laplacian_bound`], fixed with the edges (the dynamics read it every step).
    laplacian_bound: f64,
}

impl Graph {
    /// The graph of `edges` (pairs of distinct nodes, each once), weighted by `weights`.
    pub fn new(n: usize, pairs: &[(usize, usize)], weights: Weights) -> Self {
        let mut degree = vec![0usize; n];
        for &(i, j) in pairs {
            assert!(i != j && i < n && j < n, "edge ({i}, {j}) on {n} nodes");
            degree[i] += 1;
            degree[j] += 1;
        }
        let edges: Vec<(usize, usize, f64)> = pairs
            .iter()
            .map(|&(i, j)| {
                let w = match weights {
                    Weights::Metropolis => 1.0 / (1.0 + degree[i].max(degree[j]) as f64),
                    Weights::Unit => 1.0,
                };
                (i.min(j), i.max(j), w)
            })
            .collect();
        let mut weighted_degree = vec![0.0; n];
        for &(i, j, w) in &edges {
            weighted_degree[i] += w;
            weighted_degree[j] += w;
        }
        Graph {
            n,
            edges,
            laplacian_bound: 2.0 * weighted_degree.iter().copied().fold(0.0, f64::max),
        }
    }

    pub fn nodes(&self) -> usize {
        self.n
    }

    /// Each edge once as `(i, j, w_ij)`, `i < j`.
    pub fn edges(&self) -> &[(usize, usize, f64)] {
        &self.edges
    }

    pub fn is_connected(&self) -> bool {
        if self.n == 0 {
            return true;
        }
        let mut parent: Vec<usize> = (0..self.n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut components = self.n;
        for &(i, j, _) in &self.edges {
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            if a != b {
                parent[a] = b;
                components -= 1;
            }
        }
        components == 1
    }

    /// The weighted Laplacian `L = D - W`, dense.
    pub fn laplacian(&self) -> DMatrix<f64> {
        let mut l = DMatrix::zeros(self.n, self.n);
        for &(i, j, w) in &self.edges {
            l[(i, j)] -= w;
            l[(j, i)] -= w;
            l[(i, i)] += w;
            l[(j, j)] += w;
        }
        l
    }

    /// The Laplacian's eigenvalues, ascending (the first is 0; the second is the algebraic
    /// connectivity, above 0 exactly when the graph is connected).
    pub fn laplacian_spectrum(&self) -> Vec<f64> {
        let mut values: Vec<f64> = self
            .laplacian()
            .symmetric_eigenvalues()
            .iter()
            .copied()
            .collect();
        values.sort_by(f64::total_cmp);
        values
    }

    /// A bound on the Laplacian's largest eigenvalue that needs no eigen-solve: twice the
    /// largest weighted degree (Gershgorin).
    pub fn laplacian_bound(&self) -> f64 {
        self.laplacian_bound
    }
}

/// `n` nodes in a cycle.
pub fn ring(n: usize, weights: Weights) -> Graph {
    let pairs: Vec<(usize, usize)> = match n {
        0 | 1 => Vec::new(),
        2 => vec![(0, 1)],
        _ => (0..n).map(|i| (i, (i + 1) % n)).collect(),
    };
    Graph::new(n, &pairs, weights)
}

/// `n` nodes uniform in the unit square, linked within `radius`.
pub fn geometric(n: usize, radius: f64, weights: Weights, rng: &mut StdRng) -> Graph {
    let points: Vec<(f64, f64)> = (0..n)
        .map(|_| (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0)))
        .collect();
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let (dx, dy) = (points[i].0 - points[j].0, points[i].1 - points[j].1);
            if dx * dx + dy * dy <= radius * radius {
                pairs.push((i, j));
            }
        }
    }
    Graph::new(n, &pairs, weights)
}

/// Each of the `n (n - 1) / 2` pairs linked with probability `p`.
pub fn erdos_renyi(n: usize, p: f64, weights: Weights, rng: &mut StdRng) -> Graph {
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.random_bool(p) {
                pairs.push((i, j));
            }
        }
    }
    Graph::new(n, &pairs, weights)
}
