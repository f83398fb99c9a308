(** * The softmax JVP and the Hessian of log-sum-exp in binary floating point (issue 47) *)
(** The theorems behind what [bounds::softmax_jvp_bound] (src/attncheck/bounds/softmax_jvp.hpp)
    evaluates, for the operation order of the kernel template (src/attncheck/kernels/softmax_jvp.hpp):
    p̂ = softmax(x) (SoftmaxRounding.v), μ̂ = ((0 + fl(p̂_0 dx_0)) + fl(p̂_1 dx_1)) + … (the
    recursive dot product of ScoresRounding.v), dŷ_i = fl(p̂_i · fl(dx_i − μ̂)); any binary format
    with gradual underflow (Flocq's FLT, emin ≤ 0) and round to nearest, every row length n (μ̂'s
    error by γ_n while n·u < 1, and by (1+u)^n − 1 at every n: [mean_fl_error]). Proved: the element bound ([softmax_jvp_fl_bound]; the JVP of
    softmax-lipschitz-v1), and from it and the exact core of SoftmaxLipschitz.v LSE-BND-001
    ([lse_hessian_fl_bound]; at λ = 1 SLIP-BND-001, [jvp_quad_fl_bound]; and SJVP-INV-001,
    the outputs' sum, [jvp_sum_fl_bound]): the quadratic form λ·vᵀdŷ of the kernel's JVP at λz lies in
    [−λΣ|v_i|B_i, λ‖v‖²/2 + λΣ|v_i|B_i], B_i the JVP bound, as FALSIFY-LSE-004 checks it.
    The libm's exp is a Section hypothesis, as in SoftmaxRounding.v. Outside Coq: overflow, flush
    to zero, mixed precision (16-bit storage with f32 arithmetic: [round_out] is the identity
    here), and the evaluation of the bound in long double from oracle
    values rounded to long double: its term (n+2)·2^−63·(|dx_i| + s2) is transcribed, and
    [slack] stands for [evaluation_slack] (any number ≥ 1). *)
From Coq Require Import Reals Lia Lra Psatz.
From Flocq Require Import Core.Core Relative.
From Attncheck Require Import Sums ScoresRounding SoftmaxKernel SoftmaxLipschitz SoftmaxRounding.
Open Scope R_scope.

Section Jvp.
Variable emin prec : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Variable choice : Z -> bool.
Notation format := (generic_format radix2 (FLT_exp emin prec)).
Notation fl := (round radix2 (FLT_exp emin prec) (Znearest choice)).
Notation u := (ScoresRounding.u prec).
Notation eta := (SoftmaxRounding.eta emin).
Notation gamma := (SoftmaxRounding.gamma prec).

(** The kernel after its softmax: [for (j...) mean = mean + T(p[j] * dx[j]);
    for (i...) dy[i] = p[i] * T(dx[i] - mean);]
    {transcribes src/attncheck/kernels/softmax_jvp.hpp softmax_jvp #77934d16} *)
Definition mean_fl (n : nat) (ph dx : nat -> R) : R := dot_fl emin prec choice n ph dx.
Definition jvp_out_fl (n : nat) (ph dx : nat -> R) (i : nat) : R := fl (ph i * fl (dx i - mean_fl n ph dx)).

(** The bound, one line of [softmax_jvp_bound] each, for the exact row p and the element bounds
    A_j = max(b.hi_j − p_j, p_j − b.lo_j) of the softmax ([md.mixed()] false). *)
Section Bound.
Variable slack : R.
Variable n : nat.
Variable p A dx : nat -> R.
Definition jvp_mu : R := sum n (fun j => p j * dx j).
Definition jvp_s1 : R := sum n (fun j => A j * Rabs (dx j)).
Definition jvp_s2 : R := sum n (fun j => (p j + A j) * Rabs (dx j)).
Definition jvp_g : R := if Rlt_dec 0 jvp_s2 then gamma n * jvp_s2 else 0.
Definition jvp_pw : R := (1 + u) ^ n.
Definition jvp_e_pow : R := (if Rlt_dec 0 jvp_s2 then (jvp_pw - 1) * jvp_s2 else 0) + INR n * (eta / 2) * jvp_pw.
Definition jvp_e : R := if Rlt_dec (INR n * u) 1 then Rmin (jvp_g + INR n * eta) jvp_e_pow else jvp_e_pow.
Definition jvp_dmu : R := (jvp_s1 + jvp_e) * slack.
Definition jvp_r2 : R := (1 + u) * (1 + u).
Definition jvp_c (i : nat) : R :=
  Rabs (dx i - jvp_mu) + INR (n + 2) * bpow radix2 (-63) * (Rabs (dx i) + jvp_s2) + jvp_dmu.
Definition jvp_B (i : nat) : R :=
  (A i * jvp_c i + p i * jvp_dmu) * jvp_r2 + (p i + A i) * jvp_c i * (jvp_r2 - 1) + eta.
Definition jvp_out (i : nat) : R := jvp_B i * slack.
End Bound.

Lemma two_half_eta : 2 * half_eta emin = eta.
Proof. unfold half_eta, SoftmaxRounding.eta. lra. Qed.

Lemma gamma_nonneg' k : INR k * u < 1 -> 0 <= gamma k.
Proof.
  intros H. unfold SoftmaxRounding.gamma. pose proof (u_pos prec). pose proof (pos_INR k).
  apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; lra].
Qed.

(** Δμ: the kernel's mean of any floats p̂_j within A_j of p_j ≥ 0 is within [jvp_dmu] of μ, at
    every n: the dot product's error is at most ((1+u)^n − 1)·Σ|p̂_j dx_j| + n(η/2)(1+u)^n
    ([dot_fl_error]) and, while n·u < 1, at most γ_n·Σ|p̂_j dx_j| + nη ([dot_fl_error_gamma]). *)
Lemma mean_fl_error slack n ph p A dx :
  1 <= slack ->
  (forall j, (j < n)%nat -> 0 <= p j) ->
  (forall j, (j < n)%nat -> Rabs (ph j - p j) <= A j) ->
  Rabs (mean_fl n ph dx - jvp_mu n p dx) <= jvp_dmu slack n p A dx.
Proof.
  intros Hs Hp HA.
  pose proof (u_pos prec) as Hu.
  assert (He : 0 < eta) by (unfold SoftmaxRounding.eta; apply bpow_gt_0). pose proof (pos_INR n) as HnR.
  assert (HA0 : forall j, (j < n)%nat -> 0 <= A j)
    by (intros j Hj; apply (Rle_trans _ _ _ (Rabs_pos _) (HA j Hj))).
  assert (Hs2 : 0 <= jvp_s2 n p A dx)
    by (apply sum_nonneg; intros j Hj; apply Rmult_le_pos; [pose proof (Hp j Hj); pose proof (HA0 j Hj); lra | apply Rabs_pos]).
  assert (Hs1 : 0 <= jvp_s1 n A dx)
    by (apply sum_nonneg; intros j Hj; apply Rmult_le_pos; [apply HA0, Hj | apply Rabs_pos]).
  assert (Habs : sum n (fun t => Rabs (ph t * dx t)) <= jvp_s2 n p A dx).
  { apply sum_le. intros j Hj. rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos|].
    pose proof (HA j Hj). pose proof (Hp j Hj).
    replace (ph j) with (p j + (ph j - p j)) by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_pos_eq by lra. lra. }
  assert (Habs0 : 0 <= sum n (fun t => Rabs (ph t * dx t))) by (apply sum_nonneg; intros; apply Rabs_pos).
  assert (Hd : Rabs (sum n (fun t => ph t * dx t) - jvp_mu n p dx) <= jvp_s1 n A dx).
  { unfold jvp_mu, jvp_s1. rewrite <- sum_minus.
    apply (Rle_trans _ _ _ (sum_abs_le _ _)). apply sum_le. intros j Hj.
    replace (ph j * dx j - p j * dx j) with ((ph j - p j) * dx j) by ring.
    rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos | apply HA, Hj]. }
  set (E := Rabs (mean_fl n ph dx - sum n (fun t => ph t * dx t))).
  assert (Hpow : E <= jvp_e_pow n p A dx).
  { pose proof (dot_fl_error emin prec prec_gt_0_ choice n ph dx) as Hdot.
    fold (mean_fl n ph dx) in Hdot. fold E in Hdot.
    assert (Hr : 1 <= (1 + u) ^ n) by (apply pow_R1_Rle; lra).
    assert (Hh : half_eta emin = eta / 2) by (rewrite <- two_half_eta; field).
    rewrite Hh in Hdot. unfold jvp_e_pow, jvp_pw.
    destruct (Rlt_dec 0 (jvp_s2 n p A dx)) as [_|Hz].
    - assert (((1 + u) ^ n - 1) * sum n (fun t => Rabs (ph t * dx t)) <= ((1 + u) ^ n - 1) * jvp_s2 n p A dx)
        by (apply Rmult_le_compat_l; lra).
      lra.
    - assert (Hz0 : sum n (fun t => Rabs (ph t * dx t)) = 0) by lra.
      rewrite Hz0, Rmult_0_r in Hdot. lra. }
  assert (Hgam : INR n * u < 1 -> E <= jvp_g n p A dx + INR n * eta).
  { intros Hn.
    assert (Hg : jvp_g n p A dx = gamma n * jvp_s2 n p A dx).
    { unfold jvp_g. destruct (Rlt_dec 0 (jvp_s2 n p A dx)); [reflexivity|].
      assert (jvp_s2 n p A dx = 0) as -> by lra. ring. }
    pose proof (dot_fl_error_gamma emin prec prec_gt_0_ choice n ph dx Hn) as Hdot.
    rewrite two_half_eta in Hdot. fold (mean_fl n ph dx) in Hdot. fold E in Hdot.
    change (INR n * u / (1 - INR n * u)) with (gamma n) in Hdot.
    pose proof (gamma_nonneg' n Hn) as Hg0.
    assert (gamma n * sum n (fun t => Rabs (ph t * dx t)) <= gamma n * jvp_s2 n p A dx)
      by (apply Rmult_le_compat_l; assumption).
    rewrite Hg. lra. }
  assert (HE : E <= jvp_e n p A dx).
  { unfold jvp_e. destruct (Rlt_dec (INR n * u) 1) as [Hn|Hn].
    - apply Rmin_glb; [apply Hgam, Hn | exact Hpow].
    - exact Hpow. }
  assert (HE0 : 0 <= jvp_e n p A dx) by (apply (Rle_trans _ _ _ (Rabs_pos _) HE)).
  replace (mean_fl n ph dx - jvp_mu n p dx)
    with ((mean_fl n ph dx - sum n (fun t => ph t * dx t)) + (sum n (fun t => ph t * dx t) - jvp_mu n p dx))
    by ring.
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). fold E.
  unfold jvp_dmu.
  apply (Rle_trans _ (jvp_s1 n A dx + jvp_e n p A dx)); [lra|].
  rewrite <- (Rmult_1_r (_ + _)) at 1. apply Rmult_le_compat_l; lra.
Qed.

(** The JVP element bound for any floats p̂_j within A_j of p_j ≥ 0 (the softmax comes next):
    |dŷ_i − p_i(dx_i − μ)| ≤ B_i·slack. With x = dx_i − μ, μ̂ = μ + e (|e| ≤ Δμ), p̂_i = p_i + a:
    dŷ_i − p_i x = a(x − e)(1+δ)(1+ε) − p_i e(1+δ)(1+ε) + p_i x((1+δ)(1+ε) − 1) + α. *)
Lemma jvp_out_fl_error slack n ph p A dx i :
  1 <= slack -> (i < n)%nat ->
  (forall j, (j < n)%nat -> 0 <= p j) ->
  (forall j, (j < n)%nat -> Rabs (ph j - p j) <= A j) ->
  (forall j, (j < n)%nat -> format (ph j)) ->
  format (dx i) ->
  Rabs (jvp_out_fl n ph dx i - p i * (dx i - jvp_mu n p dx)) <= jvp_out slack n p A dx i.
Proof.
  intros Hs Hi Hp HA Fph Fdx.
  pose proof (mean_fl_error slack n ph p A dx Hs Hp HA) as Hmu.
  pose proof (u_pos prec) as Hu.
  assert (He : 0 < eta) by (unfold SoftmaxRounding.eta; apply bpow_gt_0).
  assert (Hhe : half_eta emin <= eta) by (rewrite <- two_half_eta; pose proof (half_eta_pos emin); lra).
  set (mh := mean_fl n ph dx) in *. set (mu := jvp_mu n p dx) in *.
  set (dmu := jvp_dmu slack n p A dx) in *.
  assert (Fm : format (- mh)).
  { apply generic_format_opp. unfold mh, mean_fl. apply dot_fl_format. exact prec_gt_0_. }
  destruct (plus_model emin prec prec_gt_0_ choice (dx i) (- mh) Fdx Fm) as [delta [Hd Hplus]].
  set (d := fl (dx i - mh)).
  assert (Hd' : d = (dx i - mh) * (1 + delta)) by (unfold d; unfold Rminus; exact Hplus).
  destruct (standard_model emin prec prec_gt_0_ choice (ph i * d)) as [eps [alpha [He' [Hal Hy]]]].
  unfold jvp_out_fl. fold mh d. rewrite Hy, Hd'.
  set (x := dx i - mu). set (e := mh - mu). set (a := ph i - p i).
  assert (Hme : Rabs e <= dmu) by exact Hmu.
  assert (Ha : Rabs a <= A i) by (apply HA, Hi).
  assert (HA0 : 0 <= A i) by (apply (Rle_trans _ _ _ (Rabs_pos _) Ha)).
  pose proof (Hp i Hi) as Hp0.
  assert (Hdmu0 : 0 <= dmu) by (apply (Rle_trans _ _ _ (Rabs_pos _) Hmu)).
  set (k := (1 + delta) * (1 + eps)).
  replace (ph i * ((dx i - mh) * (1 + delta)) * (1 + eps) + alpha - p i * x)
    with (a * (x - e) * k - p i * e * k + p i * x * (k - 1) + alpha)
    by (unfold a, x, e, k; ring).
  assert (Hk : Rabs k <= jvp_r2).
  { unfold k, jvp_r2. rewrite Rabs_mult. apply Rmult_le_compat; try apply Rabs_pos;
    (apply (Rle_trans _ _ _ (Rabs_triang _ _)); rewrite Rabs_R1; lra). }
  assert (Hk1 : Rabs (k - 1) <= jvp_r2 - 1).
  { unfold k, jvp_r2. replace ((1 + delta) * (1 + eps) - 1) with (delta + eps + delta * eps) by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_mult.
    apply (Rle_trans _ _ _ (Rplus_le_compat_r _ _ _ (Rabs_triang _ _))).
    pose proof (Rabs_pos delta). pose proof (Rabs_pos eps).
    assert (Rabs delta * Rabs eps <= u * u) by (apply Rmult_le_compat; assumption). nra. }
  assert (Hc : Rabs x + Rabs e <= jvp_c slack n p A dx i).
  { unfold jvp_c. fold mu dmu. fold x. pose proof (Rabs_pos (dx i)).
    assert (0 <= INR (n + 2) * bpow radix2 (-63) * (Rabs (dx i) + jvp_s2 n p A dx)).
    { apply Rmult_le_pos; [apply Rmult_le_pos; [apply pos_INR | apply bpow_ge_0]|].
      assert (0 <= jvp_s2 n p A dx); [|lra].
      apply sum_nonneg; intros j Hj. apply Rmult_le_pos; [|apply Rabs_pos].
      pose proof (Hp j Hj). pose proof (Rle_trans _ _ _ (Rabs_pos _) (HA j Hj)). lra. }
    lra. }
  set (c := jvp_c slack n p A dx i) in *. set (r2 := jvp_r2) in *.
  assert (Hr2 : 1 <= r2) by (unfold r2, jvp_r2; nra).
  assert (E1 : Rabs (a * (x - e) * k) <= A i * c * r2).
  { rewrite !Rabs_mult. apply Rmult_le_compat; [apply Rmult_le_pos; apply Rabs_pos | apply Rabs_pos | | exact Hk].
    apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Ha |].
    unfold Rminus. apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_Ropp. lra. }
  assert (E2 : Rabs (p i * e * k) <= p i * dmu * r2).
  { rewrite !Rabs_mult, (Rabs_pos_eq (p i) Hp0). apply Rmult_le_compat; [apply Rmult_le_pos; [lra | apply Rabs_pos] | apply Rabs_pos | | exact Hk].
    apply Rmult_le_compat_l; [lra | exact Hme]. }
  assert (E3 : Rabs (p i * x * (k - 1)) <= (p i + A i) * c * (r2 - 1)).
  { rewrite !Rabs_mult, (Rabs_pos_eq (p i) Hp0). apply Rmult_le_compat; [apply Rmult_le_pos; [lra | apply Rabs_pos] | apply Rabs_pos | | exact Hk1].
    pose proof (Rabs_pos e). apply Rmult_le_compat; [lra | apply Rabs_pos | lra | lra]. }
  unfold jvp_out, jvp_B. fold c r2. fold dmu.
  apply (Rle_trans _ ((A i * c + p i * dmu) * r2 + (p i + A i) * c * (r2 - 1) + eta)).
  - apply (Rle_trans _ _ _ (Rabs_triang _ _)).
    apply (Rle_trans _ _ _ (Rplus_le_compat_r _ _ _ (Rabs_triang _ _))).
    unfold Rminus at 1. 
    apply (Rle_trans _ _ _ (Rplus_le_compat_r _ _ _ (Rplus_le_compat_r _ _ _ (Rabs_triang _ _)))).
    rewrite Rabs_Ropp. lra.
  - assert (0 <= (A i * c + p i * dmu) * r2 + (p i + A i) * c * (r2 - 1) + eta).
    { assert (0 <= c) by (pose proof (Rabs_pos x); pose proof (Rabs_pos e); lra).
      assert (0 <= A i * c) by (apply Rmult_le_pos; lra). assert (0 <= p i * dmu) by (apply Rmult_le_pos; lra).
      assert (0 <= (p i + A i) * c) by (apply Rmult_le_pos; lra).
      assert (0 <= (A i * c + p i * dmu) * r2) by (apply Rmult_le_pos; lra).
      assert (0 <= (p i + A i) * c * (r2 - 1)) by (apply Rmult_le_pos; lra). lra. }
    rewrite <- (Rmult_1_r (_ + _ + eta)) at 1. apply Rmult_le_compat_l; lra.
Qed.

Section WithSoftmax.
Hypothesis emin_le_0 : (emin <= 0)%Z.
(** The libm's exp, as in SoftmaxRounding.v: for a float t ≤ 0 a float ≥ 0 within e_exp·exp(t) + η. *)
Variable exp_fl : R -> R.
Variable e_exp : R.
Hypothesis e_exp_range : 0 <= e_exp <= 1.
Hypothesis exp_fl_format : forall t, format t -> t <= 0 -> format (exp_fl t).
Hypothesis exp_fl_nonneg : forall t, format t -> t <= 0 -> 0 <= exp_fl t.
Hypothesis exp_fl_accurate :
  forall t, format t -> t <= 0 -> Rabs (exp_fl t - exp t) <= e_exp * exp t + eta.

(** The kernel [softmax_jvp]: p̂ = softmax(x), then the loops above. *)
Definition softmax_jvp_fl (n : nat) (x dx : nat -> R) (i : nat) : R :=
  jvp_out_fl n (softmax_fl emin prec choice exp_fl n x) dx i.

(** [softmax_jvp_bound]: [sb = softmax_bound(r, md.arithmetic())],
    [A[j] = max(sb.hi[j] - r.p[j], r.p[j] - sb.lo[j])], then the lines of [Bound] above.
    {transcribes src/attncheck/bounds/softmax_jvp.hpp softmax_jvp_bound #a739d550} *)
Definition sm_A (slack : R) (n : nat) (x : nat -> R) (j : nat) : R :=
  Rmax (bound_hi emin prec e_exp false 0 0 slack n x j - p n x j)
       (p n x j - bound_lo emin prec e_exp false 0 0 slack n x j).
Definition softmax_jvp_bound (slack : R) (n : nat) (x dx : nat -> R) (i : nat) : R :=
  jvp_out slack n (p n x) (sm_A slack n x) dx i.

(** The JVP element bound (softmax-lipschitz-v1's JVP; the bound LSE-BND-001 and SLIP-BND-001
    use): for every row length n ≥ 1, every row x and direction dx of floats,
    |dŷ_i − p_i(dx_i − ⟨dx⟩_p)| ≤ [softmax_jvp_bound]_i, for every [evaluation_slack] ≥ 1.
    {transcribes src/attncheck/bounds/softmax_jvp.hpp softmax_jvp_bound #a739d550} *)
Theorem softmax_jvp_fl_bound slack n x dx i :
  1 <= slack -> (0 < n)%nat ->
  (forall j, (j < n)%nat -> format (x j)) -> (forall j, (j < n)%nat -> format (dx j)) -> (i < n)%nat ->
  Rabs (softmax_jvp_fl n x dx i - p n x i * (dx i - sum n (fun j => p n x j * dx j)))
  <= softmax_jvp_bound slack n x dx i.
Proof.
  intros Hs Hn Fx Fdx Hi. unfold softmax_jvp_fl, softmax_jvp_bound.
  apply (jvp_out_fl_error slack n _ (p n x) (sm_A slack n x) dx i Hs Hi).
  - intros j _. apply p_nonneg.
  - intros j Hj.
    destruct (softmax_fl_element_bound emin prec prec_gt_0_ choice emin_le_0 exp_fl e_exp e_exp_range
                exp_fl_format exp_fl_nonneg exp_fl_accurate slack n x j Hs Hn Fx Hj) as [Hlo Hhi].
    unfold sm_A. apply Rabs_le. split.
    + pose proof (Rmax_r (bound_hi emin prec e_exp false 0 0 slack n x j - p n x j)
                          (p n x j - bound_lo emin prec e_exp false 0 0 slack n x j)). lra.
    + pose proof (Rmax_l (bound_hi emin prec e_exp false 0 0 slack n x j - p n x j)
                          (p n x j - bound_lo emin prec e_exp false 0 0 slack n x j)). lra.
  - intros j _. apply generic_format_round; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N].
  - apply Fdx, Hi.
Qed.

(** LSE-BND-001 (FALSIFY-LSE-004): the Hessian of f(z) = lse(λz)/λ is λ(Diag(p) − ppᵀ) at
    p = softmax(λz); for the kernel's JVP dŷ at the row x = λz (a float row: the test scales z
    exactly) in direction v, the quadratic form λ·vᵀdŷ lies in [−S, λ‖v‖²/2 + S] with
    S = slack·Σ_i λ|v_i|·B_i, B_i = [softmax_jvp_bound]_i: the interval the test evaluates
    (its [slack] sums the terms with v_i ≠ 0, the others being 0, and is widened by
    [evaluation_slack]). Every λ ≥ 0, every n ≥ 1.
    {transcribes src/attncheck/bounds/softmax_jvp.hpp softmax_jvp_bound #a739d550}
    {transcribes falsify/log_sum_exp.cpp Lse004 #d00a77ee} *)
Theorem lse_hessian_fl_bound lam slack n x v :
  0 <= lam -> 1 <= slack -> (0 < n)%nat ->
  (forall j, (j < n)%nat -> format (x j)) -> (forall j, (j < n)%nat -> format (v j)) ->
  let q := sum n (fun i => lam * v i * softmax_jvp_fl n x v i) in
  let S := sum n (fun i => lam * Rabs (v i) * softmax_jvp_bound slack n x v i) * slack in
  - S <= q <= lam * norm2 n v / 2 + S.
Proof.
  intros Hl Hs Hn Fx Fv q S.
  set (pp := p n x).
  assert (Hsim : simplex n pp) by exact (softmax_simplex n (shifted n x) Hn).
  destruct (jvp_quad_form_var n pp v (proj2 Hsim)) as [_ Hq].
  pose proof (var_nonneg n pp v Hsim) as V0. pose proof (var_le_half_norm2 n pp v Hn Hsim) as V1.
  set (err := fun i => softmax_jvp_fl n x v i - pp i * (v i - sum n (fun j => pp j * v j))).
  assert (Hq' : q = lam * var n pp v + lam * sum n (fun i => v i * err i)).
  { rewrite <- Hq. unfold q, dot, jvp, mean, err. rewrite <- sum_scal_l, <- sum_scal_l, <- sum_plus.
    apply sum_ext. intros i _. ring. }
  assert (He : Rabs (sum n (fun i => v i * err i)) <= sum n (fun i => Rabs (v i) * softmax_jvp_bound slack n x v i)).
  { apply (Rle_trans _ _ _ (sum_abs_le _ _)). apply sum_le. intros i Hi. rewrite Rabs_mult.
    apply Rmult_le_compat_l; [apply Rabs_pos|]. apply softmax_jvp_fl_bound; assumption. }
  assert (HS : lam * sum n (fun i => Rabs (v i) * softmax_jvp_bound slack n x v i) <= S).
  { unfold S. rewrite <- sum_scal_l.
    replace (sum n (fun i => lam * (Rabs (v i) * softmax_jvp_bound slack n x v i)))
      with (sum n (fun i => lam * Rabs (v i) * softmax_jvp_bound slack n x v i))
      by (apply sum_ext; intros; ring).
    assert (0 <= sum n (fun i => lam * Rabs (v i) * softmax_jvp_bound slack n x v i)).
    { apply sum_nonneg. intros i Hi. apply Rmult_le_pos; [apply Rmult_le_pos; [exact Hl | apply Rabs_pos]|].
      apply (Rle_trans _ (Rabs (softmax_jvp_fl n x v i - p n x i * (v i - sum n (fun j => p n x j * v j)))));
        [apply Rabs_pos | apply softmax_jvp_fl_bound; assumption]. }
    rewrite <- (Rmult_1_r (sum n _)) at 1. apply Rmult_le_compat_l; lra. }
  apply Rabs_le_inv in He.
  assert (lam * var n pp v <= lam * (norm2 n v / 2)) by (apply Rmult_le_compat_l; assumption).
  assert (0 <= lam * var n pp v) by (apply Rmult_le_pos; assumption).
  rewrite Hq'. split; nra.
Qed.

(** SLIP-BND-001 (FALSIFY-SLIP-003): λ = 1 and the test's own sum, not widened once more: the
    kernel's vᵀdŷ lies in [−S, ‖v‖²/2 + S], S = Σ_i |v_i|·B_i.
    {transcribes src/attncheck/bounds/softmax_jvp.hpp softmax_jvp_bound #a739d550}
    {transcribes falsify/softmax_lipschitz.cpp Slip003 #44aeb2c8} *)
Theorem jvp_quad_fl_bound slack n x v :
  1 <= slack -> (0 < n)%nat ->
  (forall j, (j < n)%nat -> format (x j)) -> (forall j, (j < n)%nat -> format (v j)) ->
  let q := sum n (fun i => v i * softmax_jvp_fl n x v i) in
  let S := sum n (fun i => Rabs (v i) * softmax_jvp_bound slack n x v i) in
  - S <= q <= norm2 n v / 2 + S.
Proof.
  intros Hs Hn Fx Fv q S.
  set (pp := p n x).
  assert (Hsim : simplex n pp) by exact (softmax_simplex n (shifted n x) Hn).
  destruct (jvp_quad_form_var n pp v (proj2 Hsim)) as [_ Hq].
  pose proof (var_nonneg n pp v Hsim) as V0. pose proof (var_le_half_norm2 n pp v Hn Hsim) as V1.
  set (err := fun i => softmax_jvp_fl n x v i - pp i * (v i - sum n (fun j => pp j * v j))).
  assert (Hq' : q = var n pp v + sum n (fun i => v i * err i)).
  { rewrite <- Hq. unfold q, dot, jvp, mean, err. rewrite <- sum_plus.
    apply sum_ext. intros i _. ring. }
  assert (He : Rabs (sum n (fun i => v i * err i)) <= S).
  { apply (Rle_trans _ _ _ (sum_abs_le _ _)). apply sum_le. intros i Hi. rewrite Rabs_mult.
    apply Rmult_le_compat_l; [apply Rabs_pos|]. apply softmax_jvp_fl_bound; assumption. }
  apply Rabs_le_inv in He. rewrite Hq'. split; lra.
Qed.

(** SJVP-INV-001 (FALSIFY-SJVP-002): the JVP sums to 0 exactly, so the kernel's outputs sum to
    within Σ_i B_i, widened by [evaluation_slack] as the test does.
    {transcribes src/attncheck/bounds/softmax_jvp.hpp softmax_jvp_bound #a739d550}
    {transcribes falsify/softmax_jvp.cpp Sjvp002 #ee0907f3} *)
Theorem jvp_sum_fl_bound slack n x dx :
  1 <= slack -> (0 < n)%nat ->
  (forall j, (j < n)%nat -> format (x j)) -> (forall j, (j < n)%nat -> format (dx j)) ->
  Rabs (sum n (softmax_jvp_fl n x dx)) <= sum n (softmax_jvp_bound slack n x dx) * slack.
Proof.
  intros Hs Hn Fx Fdx.
  set (pp := p n x).
  assert (Hsim : simplex n pp) by exact (softmax_simplex n (shifted n x) Hn).
  assert (H0 : sum n (fun i => pp i * (dx i - sum n (fun j => pp j * dx j))) = 0).
  { replace (sum n (fun i => pp i * (dx i - sum n (fun j => pp j * dx j))))
      with (sum n (fun i => pp i * dx i) - sum n pp * sum n (fun j => pp j * dx j)).
    - rewrite (proj2 Hsim). ring.
    - rewrite <- sum_scal_r, <- sum_minus. apply sum_ext. intros; ring. }
  replace (sum n (softmax_jvp_fl n x dx))
    with (sum n (fun i => softmax_jvp_fl n x dx i - pp i * (dx i - sum n (fun j => pp j * dx j))))
    by (rewrite sum_minus, H0; ring).
  assert (HB : sum n (fun i => Rabs (softmax_jvp_fl n x dx i - pp i * (dx i - sum n (fun j => pp j * dx j))))
               <= sum n (softmax_jvp_bound slack n x dx)).
  { apply sum_le. intros i Hi. apply softmax_jvp_fl_bound; assumption. }
  apply (Rle_trans _ _ _ (sum_abs_le _ _)). apply (Rle_trans _ _ _ HB).
  assert (0 <= sum n (softmax_jvp_bound slack n x dx))
    by (apply (Rle_trans _ _ _ (sum_nonneg _ _ (fun i _ => Rabs_pos _)) HB)).
  rewrite <- (Rmult_1_r (sum n _)) at 1. apply Rmult_le_compat_l; lra.
Qed.
End WithSoftmax.
End Jvp.
