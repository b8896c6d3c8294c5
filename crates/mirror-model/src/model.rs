//! The network: the seed's trunk (3x3 convolutions with batch norm and ReLU, no pooling),
//! then a joint move head: a 1x1 convolution to the 73 move planes of
//! [`crate::encoding`], one logit per (move plane, from-square), so that a move's score is
//! its own (not a from-square's plus a to-square's).

use burn::{
    config::Config,
    module::Module,
    nn::{
        BatchNorm, BatchNormConfig, PaddingConfig2d, Relu,
        conv::{Conv2d, Conv2dConfig},
    },
    tensor::{Device, Tensor},
};

use crate::encoding::{MOVE_PLANES, MOVES, PLANES};

/// Shape of the network.
#[derive(Config, Debug)]
pub struct NetConfig {
    /// Channels of every hidden convolution.
    #[config(default = 64)]
    pub channels: usize,
    /// Hidden convolution layers (3x3, padding 1).
    #[config(default = 6)]
    pub layers: usize,
}

/// One hidden layer.
#[derive(Module, Debug)]
pub struct Block {
    conv: Conv2d,
    norm: BatchNorm,
}

/// The network.
#[derive(Module, Debug)]
pub struct Net {
    blocks: Vec<Block>,
    policy: Conv2d,
    relu: Relu,
}

impl NetConfig {
    /// A freshly initialised network on `device`.
    pub fn init(&self, device: &Device) -> Net {
        let mut blocks = Vec::with_capacity(self.layers);
        let mut cin = PLANES;
        for _ in 0..self.layers {
            blocks.push(Block {
                conv: Conv2dConfig::new([cin, self.channels], [3, 3])
                    .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                    .init(device),
                norm: BatchNormConfig::new(self.channels).init(device),
            });
            cin = self.channels;
        }
        Net {
            blocks,
            policy: Conv2dConfig::new([cin, MOVE_PLANES], [1, 1]).init(device),
            relu: Relu::new(),
        }
    }
}

impl Net {
    /// `[batch, PLANES, 8, 8]` -> move logits `[batch, MOVES]` (index `plane * 64 + from`).
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let [batch, _, _, _] = x.dims();
        let mut h = x;
        for b in &self.blocks {
            h = self.relu.forward(b.norm.forward(b.conv.forward(h)));
        }
        self.policy.forward(h).reshape([batch, MOVES])
    }
}
