"""Scores the mix-back guard on eval-set.ts's files: SI-SDR gain over the input at 48 kHz of the product
and of the product with the guard, per set (evaluation set, held-out LibriSpeech, KLettres voices, the
Dutch voice apart).
    python3 evaluate.py MODEL.pt EVAL_DIR"""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
m=Guard(); m.load_state_dict(torch.load(sys.argv[1])); m.eval()
res={}
for f in sorted(glob.glob(f'{sys.argv[2]}/*.x.f32')):
    b=f[:-6]; parts=os.path.basename(b).split('.')
    rate=int(parts[0]); name=parts[1]; snr=None if parts[-1]=='clean' else int(parts[-1])
    x=np.fromfile(b+'.x.f32',np.float32); y=np.fromfile(b+'.y.f32',np.float32); r=np.fromfile(b+'.ref.f32',np.float32)
    g=np.gcd(rate,48000); r48=resample_poly(r,48000//g,rate//g)[:len(x)]
    X,Y=stft(x),stft(y)
    with torch.no_grad(): w=m(feats(X,Y))
    z=istft(apply(X,Y,w),len(x)).numpy()
    base=0 if snr is None else sisdr(r48,x)
    grp='held-out' if name.startswith('held') else 'Dutch' if '-nl-' in name else 'voices' if name.startswith('voice') else 'eval'
    res.setdefault(grp,[]).append((snr,sisdr(r48,y)-base,sisdr(r48,z)-base))
print('set      system   mean gain  worst  5-10 dB: worse by >0.5 dB, worst  clean passthrough')
for grp,L in res.items():
    noisy=[l for l in L if l[0] is not None]; mod=[l for l in noisy if l[0] in (5,10)]
    for lab,i in (('product',1),('guarded',2)):
        print(f'{grp:8s} {lab:8s} {np.mean([l[i] for l in noisy]):9.2f} {min(l[i] for l in noisy):6.2f}  {sum(l[i]<-0.5 for l in mod):3d} of {len(mod):3d}, {min(l[i] for l in mod):6.2f}  {np.mean([l[i] for l in L if l[0] is None]):6.2f}')
