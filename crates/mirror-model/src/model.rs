//! The network (the seed's shape): convolutions with batch norm and ReLU, no pooling, then a
//! from-square head and a to-square head (1x1 convolutions, 64 logits each). A move's score
//! is its from-logit plus its to-logit.

use burn::{
    config::Config,
    module::Module,
    nn::{
        BatchNorm, BatchNormConfig, PaddingConfig2d, Relu,
        conv::{Conv2d, Conv2dConfig},
    },
    tensor::{Device, Tensor},
};

use crate::encoding::PLANES;

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
    from_head: Conv2d,
    to_head: Conv2d,
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
            from_head: Conv2dConfig::new([cin, 1], [1, 1]).init(device),
            to_head: Conv2dConfig::new([cin, 1], [1, 1]).init(device),
            relu: Relu::new(),
        }
    }
}

impl Net {
    /// `[batch, 14, 8, 8]` -> (from logits `[batch, 64]`, to logits `[batch, 64]`).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let [batch, _, _, _] = x.dims();
        let mut h = x;
        for b in &self.blocks {
            h = self.relu.forward(b.norm.forward(b.conv.forward(h)));
        }
        let from = self.from_head.forward(h.clone()).reshape([batch, 64]);
        let to = self.to_head.forward(h).reshape([batch, 64]);
        (from, to)
    }
}
