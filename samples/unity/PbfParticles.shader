// PbfParticles.shader - draws pbf particles with procedural GPU instancing:
// instance i is a copy of the mesh at particle i, whose position the vertex
// shader reads from _Positions (x, y, z per particle, the fluid's local
// space, uploaded from the solver's mapped memory). No per-particle matrix
// exists anywhere. Built-in render pipeline; an unlit pass with one light
// term, so that it also draws in URP (as SRPDefaultUnlit).
Shader "Pbf/Particles" {
  Properties {
    _Color ("Color", Color) = (0.2, 0.5, 1.0, 1.0)
  }
  SubShader {
    Tags { "RenderType" = "Opaque" "Queue" = "Geometry" }
    Pass {
      CGPROGRAM
      #pragma vertex vert
      #pragma fragment frag
      #pragma target 4.5
      #include "UnityCG.cginc"

      StructuredBuffer<float> _Positions;  // 3 floats per particle [m], fluid's local space
      float4x4 _FluidToWorld;              // the component's localToWorldMatrix
      float _ParticleScale;                // mesh scale: the particle spacing for Unity's unit-diameter sphere
      fixed4 _Color;

      struct v2f {
        float4 position : SV_POSITION;
        float3 normal : TEXCOORD0;
      };

      v2f vert(appdata_base v, uint instance : SV_InstanceID) {
        float3 centre = float3(_Positions[3 * instance], _Positions[3 * instance + 1], _Positions[3 * instance + 2]);
        float4 world = mul(_FluidToWorld, float4(centre + v.vertex.xyz * _ParticleScale, 1.0));
        v2f o;
        o.position = mul(UNITY_MATRIX_VP, world);
        o.normal = normalize(mul((float3x3)_FluidToWorld, v.normal));
        return o;
      }

      fixed4 frag(v2f i) : SV_Target {
        // Half Lambert against the main directional light, so that the shape reads without shadows.
        float light = 0.5 + 0.5 * dot(normalize(i.normal), normalize(_WorldSpaceLightPos0.xyz));
        return fixed4(_Color.rgb * (0.35 + 0.65 * light), 1.0);
      }
      ENDCG
    }
  }
}
