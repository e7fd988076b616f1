// Composites retained layers: each instance is one rectangle of the window, filled from a
// rectangle of a layer texture and multiplied by a colour. Layer textures hold premultiplied,
// sRGB-encoded RGBA from the CPU rasteriser, and the surface is a non-sRGB format, so the
// pixels pass through unchanged and blending (premultiplied "over") matches tiny-skia's.
//
// A solid rectangle (a focus ring, a hover tint) samples a 1×1 white texture and carries its
// colour in `color`; a layer carries white.

struct Viewport {
    // The surface size in device pixels.
    size: vec2<f32>,
    _pad: vec2<f32>,
};

@group(0) @binding(0) var<uniform> viewport: Viewport;
@group(1) @binding(0) var layer_texture: texture_2d<f32>;
@group(1) @binding(1) var layer_sampler: sampler;

struct Instance {
    // Top-left corner and size in device pixels.
    @location(0) rect: vec4<f32>,
    // Texture coordinates of the top-left and bottom-right corners.
    @location(1) uv: vec4<f32>,
    // Premultiplied colour the texel is multiplied by.
    @location(2) color: vec4<f32>,
};

struct VertexOutput {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) corner: u32, instance: Instance) -> VertexOutput {
    // Two triangles as a strip: (0,0) (1,0) (0,1) (1,1).
    let unit = vec2<f32>(f32(corner & 1u), f32((corner >> 1u) & 1u));
    let pixel = instance.rect.xy + unit * instance.rect.zw;
    let clip = vec2<f32>(pixel.x / viewport.size.x * 2.0 - 1.0, 1.0 - pixel.y / viewport.size.y * 2.0);
    var out: VertexOutput;
    out.position = vec4<f32>(clip, 0.0, 1.0);
    out.uv = mix(instance.uv.xy, instance.uv.zw, unit);
    out.color = instance.color;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    return textureSample(layer_texture, layer_sampler, in.uv) * in.color;
}
