//! The network: the seed's trunk (3x3 convolutions with batch norm and ReLU, no pooling),
//! then a joint move head: a 1x1 convolution to the 73 move planes of
//! [`crate::encoding`], one logit per (move plane, from-square), so that a move's score is
//! its own (not a from-square's plus a to-square's); and beside it a value head: the
//! game's result from the side to move (loss, draw, win), as AlphaZero's value head but
//! with the draw its own outcome, since people draw.

use burn::{
    config::Config,
    module::Module,
    nn::{
        BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d, Relu,
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
    /// With a value head (a model saved before there was one has none).
    #[config(default = true)]
    pub value: bool,
}

/// The value head's planes (a 1x1 convolution of the trunk) and hidden units.
const VALUE_PLANES: usize = 8;
const VALUE_HIDDEN: usize = 64;

/// Outcomes the value head scores, from the side to move: loss, draw, win.
pub const OUTCOMES: usize = 3;

/// The value head: the trunk to a few planes, then two dense layers to the
/// [`OUTCOMES`]' logits.
#[derive(Module, Debug)]
pub struct ValueHead {
    conv: Conv2d,
    norm: BatchNorm,
    hidden: Linear,
    out: Linear,
}

impl ValueHead {
    fn init(channels: usize, device: &Device) -> ValueHead {
        ValueHead {
            conv: Conv2dConfig::new([channels, VALUE_PLANES], [1, 1]).init(device),
            norm: BatchNormConfig::new(VALUE_PLANES).init(device),
            hidden: LinearConfig::new(VALUE_PLANES * 64, VALUE_HIDDEN).init(device),
            out: LinearConfig::new(VALUE_HIDDEN, OUTCOMES).init(device),
        }
    }

    fn forward(&self, h: Tensor<4>, relu: &Relu) -> Tensor<2> {
        let [batch, _, _, _] = h.dims();
        let planes = relu.forward(self.norm.forward(self.conv.forward(h)));
        let hidden = relu.forward(
            self.hidden
                .forward(planes.reshape([batch, VALUE_PLANES * 64])),
        );
        self.out.forward(hidden)
    }
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
    value: Option<ValueHead>,
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
            value: self.value.then(|| ValueHead::init(cin, device)),
            relu: Relu::new(),
        }
    }
}

impl Net {
    /// `[batch, PLANES, 8, 8]` -> move logits `[batch, MOVES]` (index `plane * 64 + from`).
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let [batch, _, _, _] = x.dims();
        self.policy.forward(self.trunk(x)).reshape([batch, MOVES])
    }

    /// The move logits and, with a value head, the outcome logits `[batch, OUTCOMES]`
    /// (loss, draw, win for the side to move), from one pass through the trunk.
    pub fn forward_both(&self, x: Tensor<4>) -> (Tensor<2>, Option<Tensor<2>>) {
        let [batch, _, _, _] = x.dims();
        let h = self.trunk(x);
        let value = self
            .value
            .as_ref()
            .map(|head| head.forward(h.clone(), &self.relu));
        (self.policy.forward(h).reshape([batch, MOVES]), value)
    }

    /// Whether it has a value head.
    pub fn has_value_head(&self) -> bool {
        self.value.is_some()
    }

    /// The network with a value head: its own, else a freshly initialised one on `device`
    /// (a base saved before there were value heads learns one when fine-tuned).
    pub fn with_value_head(mut self, device: &Device) -> Net {
        if self.value.is_none() {
            let channels = self.policy.weight.val().dims()[1];
            self.value = Some(ValueHead::init(channels, device));
        }
        self
    }

    fn trunk(&self, x: Tensor<4>) -> Tensor<4> {
        let mut h = x;
        for b in &self.blocks {
            h = self.relu.forward(b.norm.forward(b.conv.forward(h)));
        }
        h
    }
}
