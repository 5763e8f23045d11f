//! The actor-critic PPO's hyperparameters ask for: flat, or one shared scorer per unit
//! (`per_unit`, agents/src/learned/actor_critic.rs).

use schedlab_agents::PolicyContext;
use schedlab_agents::learned::actor_critic::{ActorCriticConfig, ShapeMismatch};

use super::config::PpoConfig;

/// The network `config` asks for on the spaces of `ctx`.
pub fn network(
    config: &PpoConfig,
    ctx: &PolicyContext,
) -> Result<ActorCriticConfig, ShapeMismatch> {
    let net = if config.per_unit {
        ActorCriticConfig::per_unit(&ctx.observation_space, &ctx.action_space)?
    } else {
        ActorCriticConfig::new(ctx.observation_space.len(), ctx.action_space.mask_len())
    };
    Ok(net
        .with_hidden(config.play.hidden)
        .with_tanh(config.play.tanh))
}
